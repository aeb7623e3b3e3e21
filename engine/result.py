"""The engine's output: plain records plus a JSON-ready summary."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from .model import Device, Link, Place, Rack
from .spec import DesignSpec

ENGINE_VERSION = "0.2.0"


class Progress(Protocol):
    """Called by long runs: `progress(stage, done, total)`; may raise to cancel the run."""

    def __call__(self, stage: str, done: int, total: int) -> None: ...


def no_progress(_stage: str, _done: int, _total: int) -> None:
    return None


@dataclass(frozen=True)
class DesignRows:
    """What a design's link and cable rows are made of, from its draft on (the fields both records share)."""

    spec: DesignSpec
    engine_version: str
    catalog_version: str
    devices: tuple[Device, ...]
    racks: tuple[Rack, ...]
    places: tuple[Place | None, ...]
    links: tuple[Link, ...]
    lengths_m: tuple[float, ...]  # parallel to links


@dataclass(frozen=True)
class DesignDraft(DesignRows):
    """A design up to its physical layer, before its invariant checks and summary (engine.pipeline.start_design).

    It holds everything a design's link and cable rows are made of, under DesignResult's names, so a caller
    can store the rows while finish_design() checks and summarizes. The plans and models are what the
    checks and the summary need; nobody else should read them.
    """

    warnings: tuple[str, ...] = ()
    physical: Any = field(default=None, compare=False)
    catalog: Any = field(default=None, compare=False, repr=False)
    plan: Any = field(default=None, compare=False, repr=False)  # the compute fabric's plan
    storage_plan: Any = field(default=None, compare=False, repr=False)
    inband_plan: Any = field(default=None, compare=False, repr=False)
    server: Any = field(default=None, compare=False, repr=False)  # the server model
    n_servers: int = 0
    extra_summary: dict = field(default_factory=dict, compare=False, repr=False)  # summary sections made with the rows


@dataclass(frozen=True)
class DesignResult(DesignRows):
    """A computed design: its records, summary, warnings and the invariant checks it passed."""

    summary: dict[str, Any]
    warnings: tuple[str, ...]
    checks: tuple[str, ...]
    physical: Any = field(default=None, compare=False)  # engine.physical result, when computed
    # The catalog the design was computed with (custom parts included): the interface-name map and the
    # ibnetdiscover port counts read switch models from it.
    catalog: Any = field(default=None, compare=False, repr=False)

    def link_rows(self) -> Iterator[tuple]:
        """links.csv rows (see LINK_COLUMNS), streamed."""
        devs, places, racks = self.devices, self.places, self.racks
        loc = [("", "") if p is None else (racks[p.rack].id, p.u) for p in places]
        for link, length in zip(self.links, self.lengths_m):
            ra, ua = loc[link.a]
            rb, ub = loc[link.b]
            yield (
                f"L{link.id:06d}",
                link.network,
                link.plane,
                link.tier,
                link.speed_gbps,
                devs[link.a].name,
                link.a_port,
                ra,
                ua,
                devs[link.b].name,
                link.b_port,
                rb,
                ub,
                length,
            )


ProgressFn = Callable[[str, int, int], None]
