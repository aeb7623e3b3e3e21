"""Purchase orders from a BOM: order lines with spares (rules in spares.py), their split per network and SU, deltas
between two orders, and the one money format (money.py). Framework-free: the API, the pages and the change-order
renderer all read these."""
