"""``python -m frame_eval``: the command line (see :mod:`frame_eval.cli`)."""

from frame_eval.cli import main

raise SystemExit(main())
