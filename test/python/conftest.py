"""The quant_storage tests import the package from the build tree
(build/python_packages, or $QS_PYTHONPATH) and the numerics reference."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.environ.get("QS_PYTHONPATH", os.path.join(ROOT, "build", "python_packages")))
sys.path.insert(0, os.path.join(ROOT, "test", "numerics"))
