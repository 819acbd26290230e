"""Judging through the providers' batch APIs (``judgekit judge --batch``): half the price,
answers within a day, resumable from ``JUDGEKIT_HOME/batches``.

:mod:`~judgekit.judging.batch.batch_client` holds the judge's requests until they go out as
one batch; :mod:`~judgekit.judging.batch.batch_record` remembers a submitted batch so a rerun
polls it; :mod:`~judgekit.judging.batch.setup` wires both into a judging session. Nothing is
imported here, so that naming the options loads no judge.
"""
