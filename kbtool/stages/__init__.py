"""``kbtool build``: the build as its stages, each a module of this package, in order;
:func:`kbtool.stages.site.build_site` runs the scan, and :mod:`~kbtool.stages.pipeline` the rest.

1. :mod:`~kbtool.stages.scan`: every file's content digest (hashed only where its stat
   changed); then :mod:`~kbtool.stages.unchanged`: with nothing changed since the last build,
   stop here;
2. :mod:`~kbtool.stages.load`: pages from the store, or parsed by the
   :mod:`~kbtool.stages.pageworker` (page, body with holes, search text, once) in the run's
   :mod:`~kbtool.stages.workers`;
3. :mod:`~kbtool.stages.check` and 4. :mod:`~kbtool.stages.cells`: the gate; an error or a
   failing cell stops the build here, and ``site/`` is not touched;
5. :mod:`~kbtool.stages.plan`: every output with a key of what it depends on, fresh or stale;
6. :mod:`~kbtool.stages.render`: in a staging folder, reuse the fresh outputs, render the stale;
7. :mod:`~kbtool.stages.search`: the search index, updated from the live site's;
8. :mod:`~kbtool.stages.publish`: swap the staging folder in and record what it holds, all
   under the build lock (the subpackage's docstring lists its modules).
"""
