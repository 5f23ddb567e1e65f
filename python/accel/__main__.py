# __main__.py: `python -m accel ARGS` (and the `accel` script pip installs)
# runs the accel CLI shipped in the package (accel report, env, demo, bench).
import os
import sys


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    cli = os.path.join(here, "bin", "accel")
    if not os.path.exists(cli):
        sys.exit("accel: the CLI is not in this installation (" + cli + ")")
    os.execv(cli, [cli] + sys.argv[1:])


if __name__ == "__main__":
    main()
