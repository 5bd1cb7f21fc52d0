"""Turn a file's bytes into a :class:`~kbtool.model.Page`, once."""

from kbtool.parse.page import parse_page
from kbtool.parse.slugs import slugify, unique_slugs

__all__ = ["parse_page", "slugify", "unique_slugs"]
