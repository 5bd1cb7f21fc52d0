"""The store: what kbtool remembers between runs, in one SQLite file (:mod:`.db`), as records
of the kinds declared once in :mod:`.records`, keyed by their inputs and by the digest of the
code that made them (:mod:`.code`)."""
