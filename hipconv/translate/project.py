"""What the files of one run tell each other, gathered before any is translated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hipconv.rules.model import LookupTable
from hipconv.translate.mask_names import ProjectMask, project_masks
from hipconv.translate.source import SourceFile
from hipconv.translate.unknown_api import project_names


@dataclass(frozen=True)
class Project:
    names: frozenset[str] = frozenset()  # CUDA-looking names the files declare: no HC001 (unknown_api)
    masks: Mapping[str, ProjectMask] = field(default_factory=dict)  # lane masks given by name (mask_names)


NO_PROJECT = Project()  # a run of one file


def gather_project(sources: Sequence[SourceFile], table: LookupTable) -> Project:
    return Project(project_names((s.body for s in sources), table.names), project_masks(sources, table))
