# bash completion for keyid
# Generated from the command table by keyid-docs ('make docs'); do not edit.

_keyid()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= option equals= subcommand= target= word i
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    # bash splits an option written with '=' into three words: the option, '=' and the value.
    option=$prev
    if [[ $cur == = ]]; then
        cur= equals=1
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        option=${COMP_WORDS[COMP_CWORD - 2]} equals=1
    fi
    case $option in
        --value) mapfile -t COMPREPLY < <(compgen -W '-' -- "$cur"); return ;;
        --format) mapfile -t COMPREPLY < <(compgen -W 'uuid upper hex urn env' -- "$cur"); return ;;
        --backend) mapfile -t COMPREPLY < <(compgen -W 'secret-service file' -- "$cur"); return ;;
        --on-clone) mapfile -t COMPREPLY < <(compgen -W 'warn fail rotate' -- "$cur"); return ;;
        --service|--account|--label|--derive|--collection|--user|--timeout) return ;;
    esac
    [[ -n $equals ]] && return

    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            --value|--service|--account|--label|--derive|--format|--backend|--collection|--user|--timeout|--on-clone)
                [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
                ((i++))
                ;;
            -*) ;;
            *)
                if [[ -z $subcommand ]]; then
                    subcommand=$word
                elif [[ $subcommand == help && -z $target ]]; then
                    target=$word
                fi
                ;;
        esac
    done

    case $subcommand in
        '')
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '-h --help --version' -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -W 'create get delete rotate list derive doctor help' -- "$cur")
            fi
            ;;
        help)
            [[ -z $target ]] &&
                mapfile -t COMPREPLY < <(compgen -W 'create get delete rotate list derive doctor' -- "$cur")
            ;;
        create)
            mapfile -t COMPREPLY < <(compgen -W '--value --service --account --label --derive --format --json --backend --collection --user --no-prompt --timeout -h --help' -- "$cur")
            ;;
        get)
            mapfile -t COMPREPLY < <(compgen -W '--create --value --service --account --label --on-clone --format --json --backend --collection --user --no-prompt --timeout -h --help' -- "$cur")
            ;;
        delete)
            mapfile -t COMPREPLY < <(compgen -W '--force --service --account --backend --collection --user --no-prompt --timeout -h --help' -- "$cur")
            ;;
        rotate)
            mapfile -t COMPREPLY < <(compgen -W '--value --service --account --label --derive --format --json --backend --collection --user --no-prompt --timeout -h --help' -- "$cur")
            ;;
        list)
            mapfile -t COMPREPLY < <(compgen -W '--service --show --json --backend --collection --user --no-prompt --timeout -h --help' -- "$cur")
            ;;
        derive)
            mapfile -t COMPREPLY < <(compgen -W '--format -h --help' -- "$cur")
            ;;
        doctor)
            mapfile -t COMPREPLY < <(compgen -W '--service --account --backend --collection --user --timeout -h --help' -- "$cur")
            ;;
    esac
}

complete -F _keyid keyid
