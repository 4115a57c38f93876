"""Response schemas where models keep them: the ``response_schema`` key of a Hugging Face config file
(``tokenizer_config.json``, ``chat_template.json``, ``processor_config.json``), a model folder holding one, or
a tokenizer or processor object that still has the attribute. transformers >= 5.15 no longer reads the key
(``from_pretrained`` drops it silently), but the files of models such as Gemma 4 still carry it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .files import load_json

CONFIG_FILES = ("tokenizer_config.json", "chat_template.json", "processor_config.json")


class NoResponseSchema(ValueError):
    """The model, folder, file or object carries no response schema."""


def schema_from(source: Any) -> Any:
    """The response schema of ``source``: a model folder, a config file, a config dict, or an object with a
    ``response_schema`` attribute. A dict or file without the key is taken as a schema itself, unless it is
    one of the config files (then NoResponseSchema says so). A file is read as the command line reads it
    (strict JSON: a repeated key is refused, in a config file and through a folder alike); one that cannot be
    read or is not such JSON raises ``response_schema.files.FileProblem``.

        response_schema.parse(response_schema.schema_from("path/to/model"), text)   # as parse_response did
    """
    if hasattr(source, "response_schema"):
        if source.response_schema is None:
            raise NoResponseSchema(f"{type(source).__name__} has no response_schema")
        return source.response_schema
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            for name in CONFIG_FILES:
                candidate = path / name
                if candidate.is_file():
                    data = load_json(candidate)
                    if isinstance(data, dict) and "response_schema" in data:
                        return data["response_schema"]
            raise NoResponseSchema(f"{path}: none of {', '.join(CONFIG_FILES)} has a response_schema key")
        return from_config(load_json(path), path.name)
    return from_config(source, "")


def from_config(data: Any, file_name: str) -> Any:
    """The ``response_schema`` of a config's data, or the data itself when it is a schema file."""
    if isinstance(data, dict) and "response_schema" in data:
        return data["response_schema"]
    if file_name in CONFIG_FILES:
        raise NoResponseSchema(
            f"{file_name} has no response_schema key (the model ships no response schema, or it is in another "
            f"of {', '.join(CONFIG_FILES)})"
        )
    return data
