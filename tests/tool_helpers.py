"""Running ``incac`` and ``inca`` in-process for tests (a helper module, not collected)."""
from __future__ import annotations

import contextlib
import io


def tool(main, *argv) -> tuple[int, str, str]:
    """A tool's main() in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:  # argparse's usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()
