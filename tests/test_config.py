"""Checked configs (boardlab.core.config): unknown keys, wrong types and bad ranges are clear errors."""

import dataclasses
from typing import Annotated, Literal

import pytest
from pydantic import Field, ValidationError
from pydantic.dataclasses import dataclass

from boardlab.core.config import STRICT, build, load
from boardlab.core.errors import BoardlabError, FormatError


@dataclass(config=STRICT)
class Example:
    lr: Annotated[float, Field(gt=0)] = 0.1
    layers: Annotated[int, Field(ge=1, le=8)] = 2
    schedule: Literal["none", "plateau"] = "none"


def test_a_good_config_is_a_dataclass_with_its_defaults():
    config = load(Example, {"lr": 1}, "run.json")
    assert config == Example(lr=1.0) and dataclasses.asdict(config) == {"lr": 1, "layers": 2, "schedule": "none"}


@pytest.mark.parametrize("data, named", [
    ({"lr": 0.1, "size": 3}, "unknown key 'size'"),
    ({"lr": -1}, "'lr': Input should be greater than 0"),
    ({"layers": True}, "'layers'"),
    ({"layers": "3"}, "'layers'"),
    ({"schedule": "cosine"}, "'schedule'"),
])
def test_a_bad_config_names_the_file_and_the_key(data, named):
    with pytest.raises(FormatError) as caught:
        load(Example, data, "run.json")
    assert str(caught.value).startswith("run.json: ") and named in str(caught.value)


def test_a_config_that_is_not_an_object_is_refused():
    with pytest.raises(FormatError, match="run.json: the config must be a JSON object, not list"):
        load(Example, [1, 2], "run.json")


def test_options_are_checked_as_the_command_gives_them():
    assert build(Example, "train", layers=3).layers == 3
    with pytest.raises(BoardlabError, match="train: 'layers'"):
        build(Example, "train", layers=9)


def test_replace_checks_again():
    with pytest.raises(ValidationError):
        dataclasses.replace(Example(), lr=-2.0)


@dataclass(config=STRICT)
class Joined:
    arch: Literal["study", "regions"] = "study"
    permute: bool = False

    def __post_init__(self) -> None:
        if self.permute and self.arch != "study":
            raise ValueError("permute is for arch study")


def test_a_rule_joining_keys_reads_as_its_own_message():
    with pytest.raises(FormatError) as caught:
        load(Joined, {"arch": "regions", "permute": True}, "net.json")
    assert str(caught.value) == "net.json: permute is for arch study"
