"""The atlas's certificate: the sweep's inputs enclosed over parameter cells (leaves), the
objectives evaluated in interval arithmetic over each cell, and the proof that no ordering
change hides between the reported breakpoints (:mod:`fstheory.atlas.certificate.certify`)."""
