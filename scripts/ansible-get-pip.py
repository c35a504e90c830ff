"""Stands in for get-pip.py, which ansible-test downloads from a host outside the package
registries to put pip into each new virtual environment of its sanity tests.

ansible-test runs it, in the new environment's Python, with pip's options and the packages to
install (pip==VERSION) and get-pip's own --no-setuptools and --no-wheel. Here ensurepip puts
the pip that Python ships (Debian's python3-venv) into the environment, and that pip installs
the packages from PyPI.
"""

import subprocess
import sys

GET_PIP_ONLY = ('--no-setuptools', '--no-wheel')

subprocess.run([sys.executable, '-m', 'ensurepip'], check=True, stdout=subprocess.DEVNULL)
arguments = [argument for argument in sys.argv[1:] if argument not in GET_PIP_ONLY]
sys.exit(subprocess.run([sys.executable, '-m', 'pip', 'install', '--quiet'] + arguments, check=False).returncode)
