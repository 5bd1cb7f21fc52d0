import sys

from kbtool.cli import main

sys.exit(main())
