"""NVIDIA Nsight Compute's Python Report Interface, implemented by Sightline.

A drop-in for NVIDIA's ``ncu_report`` module: ``ncu_report.load_report(path)`` returns an
``IContext`` whose ranges hold the report's results (``IAction``) and their metrics
(``IMetric``), read by Sightline's reader. The objects are ``sightline``'s.
"""

from sightline import *  # noqa: F401,F403
from sightline import __all__  # noqa: F401
