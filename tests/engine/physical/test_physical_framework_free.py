"""engine.physical imports nothing but the standard library and PyYAML."""

import subprocess
import sys


def test_engine_physical_is_framework_free():
    code = (
        "import sys, engine.physical, engine.physical.catalog as c; c.load_media_catalog();"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery', 'apps')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
