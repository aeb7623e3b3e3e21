"""Purchase orders from a BOM: order lines with spares (rules in spares.py and failure_rates.py), their split per
network and SU, deltas between two orders, and the one money format (money.py). Framework-free: the API, the pages
and the change-order renderer all read these."""

from . import failure_rates  # noqa: F401  (registers the failure-rate rule in spares.SPARES_RULES)
