"""Design alternatives: from one requirement, candidate fabrics judged side by side (docs/alternatives.md).

requirement.py  Requirement (frozen) and parse_requirement (plain data -> Requirement, SpecError by field)
candidates.py   the choices varied, the candidate specs, save-time refusals and same-plan duplicates
judge.py        a computed candidate's figures, each read from the engine's own results
pareto.py       the Pareto front over the chosen objectives
study.py        run_study: enumerate, compute, judge, drop what breaks a constraint or repeats a fabric
"""
