from boardlab.cli import main

main()
