"""A :class:`ChatClient` whose requests wait for a batch instead of going out one by one.

The judge runs exactly as it does without batches — cache first, prompts, parsing, verdicts,
costs — but each request it cannot answer from the cache waits here. Once every run being
judged is waiting (the event loop has settled), the waiting requests go out as one batch
(several side by side when they pass the API's limits on requests or bytes), polled every
``poll_interval_s`` until it ends; its answers resume the judge. A
batch's intent is recorded before it is sent (see
:mod:`~judgekit.judging.batch.batch_record`), so a rerun finds a batch whose id never arrived. An
answer that is not a valid verdict gets its one repair retry in a small follow-up batch of
the repairs, made the same way. A request the batch failed or left unanswered (expiry) gets a
retryable :class:`ProviderError`: its run is *not judged*, and a rerun asks for it again.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import Callable

from judgekit.errors import ProviderError
from judgekit.judging.batch.batch_record import BatchRecord
from judgekit.providers.batch_calls import BatchAnswers, BatchApi, BatchNotFound, batch_api
from judgekit.providers.chat import ChatProvider, ChatRequest, ChatResponse
from judgekit.providers.client import ChatClient

__all__ = ["BatchClient"]

# Event-loop turns with no new request before the judge counts as waiting: a run goes from
# being started to asking in a handful of turns, with no I/O in between (the cache is local).
_SETTLED_TURNS = 50

_Waiting = dict[str, tuple[ChatRequest, "asyncio.Future[ChatResponse]"]]


class BatchClient(ChatClient):
    """Collects requests into batches of ``provider``'s batch API; ``on_event`` hears what is
    submitted, resumed and answered, one line each."""

    def __init__(
        self,
        provider: ChatProvider,
        *,
        poll_interval_s: float = 30.0,
        max_attempts: int = 6,
        on_event: Callable[[str], None] | None = None,
        api: BatchApi | None = None,
    ) -> None:
        super().__init__(provider, concurrency=1, max_attempts=max_attempts)
        self.api = api or batch_api(provider)
        self.poll_interval_s = poll_interval_s
        self.on_event = on_event or (lambda line: None)
        self.submitted: list[str] = []  # batch ids this client created
        self.resumed: list[str] = []  # batch ids found in JUDGEKIT_HOME and polled
        self._waiting: _Waiting = {}
        self._asked: Counter[str] = Counter()  # asks per identical request, for unique ids
        self._rounds: asyncio.Task[None] | None = None
        self._records: list[BatchRecord] = []  # one per batch of the round being sent

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """The answer to ``request``, once the batch holding it has ended."""
        self.requests += 1
        # The k samples of a judge are the same request asked k times: the n-th ask of a
        # request is its own item, and the order of asks is the order runs are read.
        digest = hashlib.sha256(request.model_dump_json().encode()).hexdigest()[:40]
        custom_id = f"{digest}-{self._asked[digest]}"
        self._asked[digest] += 1
        future: asyncio.Future[ChatResponse] = asyncio.get_running_loop().create_future()
        self._waiting[custom_id] = (request, future)
        if self._rounds is None or self._rounds.done():
            self._rounds = asyncio.create_task(self._run_rounds())
        return await future

    async def _run_rounds(self) -> None:
        """Send what is waiting as batches (as many as the API's limits need, polled side by
        side), again and again while requests keep coming."""
        while True:
            await self._settle()
            if not self._waiting:
                return
            waiting, self._waiting = self._waiting, {}
            self._asked.clear()
            parts = self._split(waiting)
            self._records = [
                BatchRecord(self.provider.name, self.provider.endpoint, sorted(part))
                for part in parts
            ]
            await asyncio.gather(*map(self._round, parts, self._records))

    def _split(self, waiting: _Waiting) -> list[_Waiting]:
        """The waiting requests in the batches the API's limits allow: which batch holds a
        request is fixed by the split, the order in a batch is the order asked."""
        parts = self.api.parts({cid: request for cid, (request, _) in waiting.items()})
        batch_of = {cid: number for number, part in enumerate(parts) for cid in part}
        split: list[_Waiting] = [{} for _ in parts]
        for cid, ask in waiting.items():
            split[batch_of[cid]][cid] = ask
        return split

    async def _round(self, waiting: _Waiting, record: BatchRecord) -> None:
        """One batch of the waiting requests, its answers handed to the runs asking."""
        try:
            answers = await self._batch(record, {cid: req for cid, (req, _) in waiting.items()})
        except Exception as error:  # every waiting run learns of it; none hangs
            for _, future in waiting.values():
                if not future.done():
                    future.set_exception(error)
            return
        for custom_id, (_, future) in waiting.items():
            if not future.done():
                _resolve(future, answers[custom_id])
        try:
            await self._settle()  # the judge caches the answers as it reads them
        finally:
            # Spent, also when the judge finished first and this task is cancelled.
            record.remove()

    async def _settle(self) -> None:
        """Wait until the judge is idle: no new request for a few event-loop turns."""
        steady, last = 0, -1
        while steady < _SETTLED_TURNS:
            await asyncio.sleep(0)
            steady = steady + 1 if len(self._waiting) == last else 0
            last = len(self._waiting)

    async def _batch(self, record: BatchRecord, requests: dict[str, ChatRequest]) -> BatchAnswers:
        batch_id = record.batch_id()
        if batch_id is None:
            batch_id = await self._found_or_submitted(record, requests)
        else:
            self.resumed.append(batch_id)
            self.on_event(f"polling batch {batch_id} ({len(requests)} requests), submitted before")
        try:
            status = await self._wait_for_end(batch_id)
        except BatchNotFound as error:
            # A batch the provider no longer knows (deleted, another account): waiting cannot
            # help, and the record must not block every later rerun.
            record.remove()
            raise ProviderError(
                f"{error}, recorded in {record.path}; the record is removed: rerun to submit "
                "the requests again"
            ) from error
        answers = await self.api.answers(batch_id, requests)
        unanswered = ProviderError(
            f"the batch ended {status} without answering this request", retryable=True
        )
        for custom_id in requests.keys() - answers.keys():
            answers[custom_id] = unanswered
        left = sum(not isinstance(answer, ChatResponse) for answer in answers.values())
        self.on_event(f"batch {batch_id} {status}: {len(requests) - left} answered, {left} not")
        return answers

    async def _found_or_submitted(
        self, record: BatchRecord, requests: dict[str, ChatRequest]
    ) -> str:
        """The batch a killed process submitted for these requests, found by the intent it
        recorded first; else a new batch, its intent recorded before it is sent."""
        size, provider = len(requests), self.provider.name
        intent = record.intent()
        if intent is not None:
            # Another part's batch is never this one's, whatever its size.
            taken = {bid for other in self._records if (bid := other.batch_id()) is not None}
            taken |= {*self.submitted, *self.resumed}
            found = await self.api.find(
                intent.tag, since=intent.at, custom_ids=set(requests), taken=frozenset(taken)
            )
            if found is not None:
                record.save(found, provider, size)
                self.resumed.append(found)
                self.on_event(
                    f"polling batch {found} ({size} requests), found by the tag recorded "
                    "before it was submitted"
                )
                return found
        intent = record.save_intent(provider, size)
        batch_id = await self.api.submit(list(requests.items()), tag=intent.tag)
        record.save(batch_id, provider, size)
        self.submitted.append(batch_id)
        self.on_event(f"submitted batch {batch_id} ({size} requests)")
        return batch_id

    async def _wait_for_end(self, batch_id: str) -> str:
        """Poll until the batch ends; a poll that fails retryably is tried again, up to
        ``max_attempts`` times in a row."""
        failures = 0
        while True:
            try:
                state = await self.api.state(batch_id)
            except ProviderError as error:
                failures += 1
                if not error.retryable or failures >= self.max_attempts:
                    raise
            else:
                failures = 0
                if state.ended:
                    return state.status
            await asyncio.sleep(self.poll_interval_s)


def _resolve(future: asyncio.Future[ChatResponse], answer: ChatResponse | ProviderError) -> None:
    if isinstance(answer, ChatResponse):
        future.set_result(answer)
    else:
        future.set_exception(answer)
        future.exception()  # retrieved here, so a cancelled waiter leaves no warning
