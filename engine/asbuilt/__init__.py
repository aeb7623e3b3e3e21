"""As-built commissioning: what the fabric is (InfiniBand discovery, LLDP neighbours, a CSV) against the plan.

records.py   plain planned and observed records
matching.py  observed port identity -> planned port and link (shared with the counter checks)
plan.py      the plan side from a computed design
parsers/     one reader per tool output
classify.py  every planned and observed link classified; accumulation of partial imports
fixlist.py   the problems as actions a technician works from, sorted by rack
"""
