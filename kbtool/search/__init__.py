"""kbtool's own full-text search index: built with the site, read by the browser and by
``kbtool search``.

- :mod:`~kbtool.search.text`: a page -> :class:`SearchDoc` (its searchable text);
- :mod:`~kbtool.search.tokens`: text -> terms, a query -> its parts;
- :mod:`~kbtool.search.page_terms`: a page's terms as the page worker stores them, merged
  into the term files by a write from scratch;
- :mod:`~kbtool.search.postings`, :mod:`~kbtool.search.codec`, :mod:`~kbtool.search.layout`:
  the files under ``site/search/``;
- :mod:`~kbtool.search.output`, :mod:`~kbtool.search.writer`, :mod:`~kbtool.search.update`:
  write them, from scratch or as an update segment;
- :mod:`~kbtool.search.index` reads them; :mod:`~kbtool.search.matching`,
  :mod:`~kbtool.search.engine` and :mod:`~kbtool.search.excerpt` answer a query.
"""

from kbtool.search.output import SearchStats
from kbtool.search.text import SearchDoc, search_doc
from kbtool.search.writer import write_search_index

__all__ = ["SearchDoc", "SearchStats", "search_doc", "write_search_index"]
