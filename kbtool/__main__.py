from kbtool.cli import run

run()
