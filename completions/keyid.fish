# fish completion for keyid
# Generated from the command table by keyid-docs ('make docs'); do not edit.

complete -c keyid -f
complete -c keyid -n __fish_use_subcommand -a create -d 'store a new random ID and print it'
complete -c keyid -n __fish_use_subcommand -a get -d 'print the stored ID'
complete -c keyid -n __fish_use_subcommand -a delete -d 'remove the stored ID'
complete -c keyid -n __fish_use_subcommand -a rotate -d 'replace the stored ID with a new one and print it'
complete -c keyid -n __fish_use_subcommand -a help -d 'show help for a subcommand'
complete -c keyid -n __fish_use_subcommand -s h -l help -d 'show this help'
complete -c keyid -n __fish_use_subcommand -l version -d 'print the version'

complete -c keyid -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from create get delete rotate' -a create -d 'store a new random ID and print it'
complete -c keyid -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from create get delete rotate' -a get -d 'print the stored ID'
complete -c keyid -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from create get delete rotate' -a delete -d 'remove the stored ID'
complete -c keyid -n '__fish_seen_subcommand_from help; and not __fish_seen_subcommand_from create get delete rotate' -a rotate -d 'replace the stored ID with a new one and print it'

complete -c keyid -n '__fish_seen_subcommand_from create' -l service -x -d 'the service attribute of the item (default: keyid)'
complete -c keyid -n '__fish_seen_subcommand_from create' -l account -x -d 'the account attribute of the item (default: device-id)'
complete -c keyid -n '__fish_seen_subcommand_from create' -l format -x -a 'uuid upper hex urn' -d 'how to print the ID: uuid (default), upper, hex or urn'
complete -c keyid -n '__fish_seen_subcommand_from create' -l json -d 'print one JSON object with id, service, account, label, created and modified'
complete -c keyid -n '__fish_seen_subcommand_from create' -l no-prompt -d 'never ask to unlock a locked keyring; fail with exit status 4 instead'
complete -c keyid -n '__fish_seen_subcommand_from create' -l timeout -x -d 'give up after this many seconds with exit status 6 (default: 30)'
complete -c keyid -n '__fish_seen_subcommand_from create' -s h -l help -d 'show this help'

complete -c keyid -n '__fish_seen_subcommand_from get' -l create -d 'create and store an ID when none is stored'
complete -c keyid -n '__fish_seen_subcommand_from get' -l service -x -d 'the service attribute of the item (default: keyid)'
complete -c keyid -n '__fish_seen_subcommand_from get' -l account -x -d 'the account attribute of the item (default: device-id)'
complete -c keyid -n '__fish_seen_subcommand_from get' -l format -x -a 'uuid upper hex urn' -d 'how to print the ID: uuid (default), upper, hex or urn'
complete -c keyid -n '__fish_seen_subcommand_from get' -l json -d 'print one JSON object with id, service, account, label, created and modified'
complete -c keyid -n '__fish_seen_subcommand_from get' -l no-prompt -d 'never ask to unlock a locked keyring; fail with exit status 4 instead'
complete -c keyid -n '__fish_seen_subcommand_from get' -l timeout -x -d 'give up after this many seconds with exit status 6 (default: 30)'
complete -c keyid -n '__fish_seen_subcommand_from get' -s h -l help -d 'show this help'

complete -c keyid -n '__fish_seen_subcommand_from delete' -l force -d 'succeed when no ID is stored'
complete -c keyid -n '__fish_seen_subcommand_from delete' -l service -x -d 'the service attribute of the item (default: keyid)'
complete -c keyid -n '__fish_seen_subcommand_from delete' -l account -x -d 'the account attribute of the item (default: device-id)'
complete -c keyid -n '__fish_seen_subcommand_from delete' -l no-prompt -d 'never ask to unlock a locked keyring; fail with exit status 4 instead'
complete -c keyid -n '__fish_seen_subcommand_from delete' -l timeout -x -d 'give up after this many seconds with exit status 6 (default: 30)'
complete -c keyid -n '__fish_seen_subcommand_from delete' -s h -l help -d 'show this help'

complete -c keyid -n '__fish_seen_subcommand_from rotate' -l value -x -a '-' -d 'read the new ID from standard input instead of making one'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -l service -x -d 'the service attribute of the item (default: keyid)'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -l account -x -d 'the account attribute of the item (default: device-id)'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -l format -x -a 'uuid upper hex urn' -d 'how to print the ID: uuid (default), upper, hex or urn'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -l json -d 'print one JSON object with id, service, account, label, created and modified'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -l no-prompt -d 'never ask to unlock a locked keyring; fail with exit status 4 instead'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -l timeout -x -d 'give up after this many seconds with exit status 6 (default: 30)'
complete -c keyid -n '__fish_seen_subcommand_from rotate' -s h -l help -d 'show this help'
