"""Insertion-loss budget per optical channel, and component compliance.

Check 1, channel budget: fiber length x attenuation (per fiber type) + every
intermediate mated pair (panels, cassettes) + splices (+ the two transceiver mated pairs
when ``count_interfaces``, on by default) against the PMD's max channel insertion loss.
Margin = limit - loss; status pass / marginal (margin below the threshold, default
0.5 dB) / fail (negative margin).

Check 2, component compliance with the transceiver vendor's cabling requirements
(NVIDIA [S9]: MPO <= 0.35 dB and APC, LC <= 0.25 dB and UPC, at most two panels / four
mated pairs, length per channel type, Type-B female cords and Type-B male trunks).

Worked example (docs/physical-layer.md): 100 m OS2 at 0.4 dB/km through two panels of
low-loss MPO (0.35 dB): 0.04 + 2 x 0.35 = 0.74 dB; with the interfaces 1.44 dB; the
400GBASE-DR4 limit is 3.0 dB.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import EngineInvariantError
from engine.physical.catalog import Pmd
from engine.physical.channel import Channel, cable_faces, mated_faces, mated_pairs
from engine.physical.constants import connector_group
from engine.physical.policy import MediaPolicy

_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class ComponentIssue:
    """A cabling component that breaks the transceiver vendor's requirements."""

    rule: str  # connector-grade | polish | panels | mated-pairs | length | cord-polarity | cord-gender | trunk-polarity | trunk-gender
    element_id: str
    message: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class LossBudget:
    loss_db: float
    limit_db: float | None
    margin_db: float | None
    status: str  # pass | marginal | fail | n/a (copper)
    terms: tuple[tuple[str, float], ...]
    component_issues: tuple[ComponentIssue, ...] = ()
    length_m: float = 0.0
    fiber_type: str | None = None

    @property
    def compliant(self) -> bool:
        return not self.component_issues


def loss_budget(channel: Channel, length_m: float, pmd: Pmd | None, policy: MediaPolicy) -> LossBudget:
    """Loss budget of ``channel`` over a total fiber length of ``length_m`` (cords, trunk
    and slack together). Pure; memoize per (channel, rounded length)."""
    if channel.kind == "copper" or pmd is None:
        return LossBudget(0.0, None, None, "n/a", (), (), length_m, None)
    lp = policy.loss
    els = channel.elements
    ft = channel.fiber_type
    if ft is None:  # build_channel gives every optical channel its choice's fiber type
        raise EngineInvariantError("an optical channel without a fiber type")
    att = lp.attenuation(ft)
    terms: list[tuple[str, float]] = [(f"fiber {length_m:g} m {ft.upper()} x {att:g} dB/km", length_m / 1000.0 * att)]
    cassette_ids = {i for i, e in enumerate(els) if e.kind == "cassette"}
    cassette_db = lp.cassette_loss_db
    combined_cassette = cassette_db is not None
    if cassette_db is not None:
        for i in sorted(cassette_ids):
            terms.append((f"{els[i].id} cassette (combined)", cassette_db))
    pairs = mated_pairs(channel)
    for p in pairs:
        left, right = els[p.left], els[p.right]
        left_face = mated_faces(els, p)[0]
        group = connector_group(left_face.family)
        pair_db = lp.pair_loss_db(group)
        grade = lp.grade(group)
        if left.kind == "interface" or right.kind == "interface":
            if lp.count_interfaces:
                iface = left if left.kind == "interface" else right
                terms.append((f"{iface.id} interface {left_face.family.upper()} mated pair ({grade})", pair_db))
            continue
        if combined_cassette and (p.left in cassette_ids or p.right in cassette_ids):
            continue
        where = els[p.via].id if p.via >= 0 else (right.id if right.kind == "cassette" else left.id)
        terms.append((f"{where} {left_face.family.upper()} mated pair ({grade})", pair_db))
    if lp.splices_per_channel:
        terms.append(
            (
                f"{lp.splices_per_channel} splice(s) x {lp.splice_loss_db:g} dB",
                lp.splices_per_channel * lp.splice_loss_db,
            )
        )
    terms_t = tuple((label, round(db, 4)) for label, db in terms)
    loss = round(sum(db for _, db in terms), 4)
    limit = pmd.il_limit(ft)
    if limit is None:
        margin, status = None, "fail"
        terms_t += ((f"no max channel IL for {pmd.name} on {ft.upper()}", 0.0),)
    else:
        margin = round(limit - loss, 4)
        if margin < -_EPS:
            status = "fail"
        elif margin < lp.marginal_threshold_db - _EPS:
            status = "marginal"
        else:
            status = "pass"
    issues = component_issues(channel, length_m, policy) if lp.vendor_requirements else ()
    return LossBudget(loss, limit, margin, status, terms_t, issues, length_m, ft)


def component_issues(channel: Channel, length_m: float, policy: MediaPolicy) -> tuple[ComponentIssue, ...]:  # noqa: C901
    """Check the channel's components against its vendor rules (``channel.rules``)."""
    rules = channel.rules
    if rules is None or channel.kind == "copper":
        return ()
    els = channel.elements
    lp = policy.loss
    out: list[ComponentIssue] = []
    src = rules.sources[0] if rules.sources else ""
    vendor = rules.vendor.upper()
    pairs = mated_pairs(channel)
    groups = {connector_group(mated_faces(els, p)[0].family) for p in pairs}
    for group in sorted(groups):
        limit = rules.mpo_max_il_db if group == "mpo" else rules.lc_max_il_db
        db = lp.pair_loss_db(group)
        if limit is not None and db > limit + _EPS:
            out.append(
                ComponentIssue(
                    "connector-grade",
                    "channel",
                    f"{group.upper()} connectors are {lp.grade(group)} grade ({db:g} dB per mated pair); "
                    f"{vendor} requires at most {limit:g} dB (low-loss / Elite) [{src}]",
                    src,
                )
            )
    seen: set[str] = set()
    for el in els:
        for face in (el.a, el.b):
            if face is None or el.id in seen:
                continue
            want = rules.lc_polish if face.family == "lc" else rules.mpo_polish
            if want and face.polish != want:
                seen.add(el.id)
                out.append(
                    ComponentIssue(
                        "polish",
                        el.id,
                        f"{el.id}: {face.family.upper()} is {face.polish.upper()}; {vendor} requires {want.upper()} [{src}]",
                        src,
                    )
                )
    if rules.max_panels is not None and channel.panels > rules.max_panels:
        out.append(
            ComponentIssue(
                "panels",
                "channel",
                f"{channel.panels} patch panels; {vendor} reach specs assume at most {rules.max_panels} [{src}]",
                src,
            )
        )
    if rules.max_mated_pairs is not None and len(pairs) > rules.max_mated_pairs:
        out.append(
            ComponentIssue(
                "mated-pairs",
                "channel",
                f"{len(pairs)} mated pairs; {vendor} assumes at most {rules.max_mated_pairs} [{src}]",
                src,
            )
        )
    max_len = dict(rules.max_length_m).get(channel.channel_type or "")
    if max_len is not None and length_m > max_len + _EPS:
        out.append(
            ComponentIssue(
                "length",
                "channel",
                f"{length_m:g} m exceeds {vendor}'s {max_len:g} m for a {channel.channel_type} channel (panels, trunks and cords included) [{src}]",
                src,
            )
        )
    if channel.kind == "parallel":
        for el in els:
            if el.kind == "cord":
                if rules.cord_polarity and el.polarity != rules.cord_polarity:
                    out.append(
                        ComponentIssue(
                            "cord-polarity",
                            el.id,
                            f"{el.id}: Type-{el.polarity} cord; {vendor} specifies Type-{rules.cord_polarity} [{src}]",
                            src,
                        )
                    )
                if rules.cord_gender and any(f.gender != rules.cord_gender for f in cable_faces(el)):
                    out.append(
                        ComponentIssue(
                            "cord-gender",
                            el.id,
                            f"{el.id}: cords must be {rules.cord_gender} (female) at both ends for {vendor} [{src}]",
                            src,
                        )
                    )
            elif el.kind == "trunk":
                if rules.trunk_polarity and el.polarity != rules.trunk_polarity:
                    out.append(
                        ComponentIssue(
                            "trunk-polarity",
                            el.id,
                            f"{el.id}: Type-{el.polarity} trunk; {vendor} specifies Type-{rules.trunk_polarity} [{src}]",
                            src,
                        )
                    )
                if rules.trunk_gender and any(f.gender != rules.trunk_gender for f in cable_faces(el)):
                    out.append(
                        ComponentIssue(
                            "trunk-gender",
                            el.id,
                            f"{el.id}: trunks must be {rules.trunk_gender} (male) at both ends for {vendor} [{src}]",
                            src,
                        )
                    )
    return tuple(out)
