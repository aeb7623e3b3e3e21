"""Physical layer: media selection per cage, channels, polarity and fiber maps, loss
budgets, trunks and panels, labels, fiber counts. Framework-free (stdlib + PyYAML).

See docs/physical-layer.md for the API and the rules with their sources.
"""

from engine.physical.catalog import CatalogError, MediaCatalog, load_media_catalog, sku_for_length
from engine.physical.channel import (
    Channel,
    ChannelIssue,
    Element,
    Face,
    LanePath,
    build_channel,
    check_channel,
    lane_map,
    mated_pairs,
)
from engine.physical.fibers import FiberCount, FiberTotals, fiber_totals, link_fibers, rollup, trunk_fibers
from engine.physical.labels import LabelEnd, LabelTemplate, cable_labels, cable_labels_of, port_template, trunk_labels
from engine.physical.loss import ComponentIssue, LossBudget, loss_budget
from engine.physical.policy import LossPolicy, MediaPolicy, TierPolicy
from engine.physical.select import (
    CageEnd,
    MediaChoice,
    MediaRequest,
    MediaSelectionError,
    cable_for_run,
    check_cage_consistency,
    default_top,
    select_media,
)
from engine.physical.structured import (
    LegRun,
    LegRuns,
    LinkSlot,
    RackPanels,
    TrunkDemand,
    TrunkPlan,
    TrunkRun,
    plan_panels,
    plan_trunks,
)

__all__ = [
    "CageEnd",
    "CatalogError",
    "Channel",
    "ChannelIssue",
    "ComponentIssue",
    "Element",
    "Face",
    "FiberCount",
    "FiberTotals",
    "LabelEnd",
    "LabelTemplate",
    "LanePath",
    "LegRun",
    "LegRuns",
    "LinkSlot",
    "LossBudget",
    "LossPolicy",
    "MediaCatalog",
    "MediaChoice",
    "MediaPolicy",
    "MediaRequest",
    "MediaSelectionError",
    "RackPanels",
    "TierPolicy",
    "TrunkDemand",
    "TrunkPlan",
    "TrunkRun",
    "build_channel",
    "cable_for_run",
    "cable_labels",
    "cable_labels_of",
    "check_cage_consistency",
    "check_channel",
    "default_top",
    "fiber_totals",
    "lane_map",
    "link_fibers",
    "load_media_catalog",
    "loss_budget",
    "mated_pairs",
    "plan_panels",
    "plan_trunks",
    "port_template",
    "rollup",
    "select_media",
    "sku_for_length",
    "trunk_fibers",
    "trunk_labels",
]
