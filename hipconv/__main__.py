from hipconv.cli import main

raise SystemExit(main())
