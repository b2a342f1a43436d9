import sys

from netcfg.cli import main

sys.exit(main())
