"""Running a build's chunks on several processes, with one progress count.

A full build splits the papers into contiguous chunks; each chunk becomes one
Whoosh segment written by its own forked process (the papers are inherited
through ``fork``, not pickled), and the segments are listed in chunk order,
so docnums follow the input order. Only the small results (a segment object
and a lexicon) travel back through a pipe.

``fork`` is used only when the calling process runs a single thread (as in
``bot.corpus.parallel``): a forked copy of a threaded server could inherit a
held lock. Otherwise, or for one chunk, everything runs in-process.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
from multiprocessing.connection import wait
from typing import Any, Callable

from bot.core.procs import die_with_parent, fork_is_safe

#: ``fn(start, end, tick)``: index items ``[start, end)``, calling
#: ``tick(k)`` after each ``k`` more items; returns a picklable result.
ChunkFn = Callable[[int, int, Callable[[int], None]], Any]

#: How often (seconds) the parent reports progress while workers run.
POLL_S = 0.5


class WorkerFailed(RuntimeError):
    """A build worker raised or died; the message says which and why."""


def usable_processes(wanted: int) -> int:
    """``wanted`` capped by the CPUs, or 1 when fork is unsafe or missing."""
    if wanted <= 1 or not fork_is_safe():
        return 1
    return max(1, min(wanted, os.cpu_count() or 1))


def run_chunks(fn: ChunkFn, total: int, procs: int, progress: Callable[[int], None] | None = None) -> list[Any]:
    """Run ``fn`` over ``procs`` contiguous chunks of ``range(total)``.

    Args:
        fn: the chunk function (see ``ChunkFn``).
        total: number of items.
        procs: processes to use (1 = in this process; see ``usable_processes``).
        progress: called with the number of items done so far, from this
            process only (every ``POLL_S`` s while workers run).

    Returns:
        The chunks' results, in chunk order.

    Raises:
        OSError, ValueError: a worker raised one (re-raised as is).
        WorkerFailed: a worker raised anything else (its type and message
            are kept) or died (e.g. killed for memory); the other workers
            are stopped first.
        Any exception of ``fn`` itself when ``procs`` is 1.
    """
    procs = max(1, min(procs, total))
    if procs == 1:
        return [_in_process(fn, total, progress)]
    bounds = [(total * i // procs, total * (i + 1) // procs) for i in range(procs)]
    context = multiprocessing.get_context("fork")
    counter = context.Value("q", 0)
    workers: list = []
    pipes: list = []
    try:
        _start_workers(context, fn, bounds, counter, workers, pipes)
        results = _collect(workers, pipes, counter, progress)
        for worker in workers:
            worker.join()
        return [results[i] for i in range(procs)]
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for pipe in pipes:
            pipe.close()


def _in_process(fn: ChunkFn, total: int, progress: Callable[[int], None] | None) -> Any:
    """``fn`` over all ``total`` items in this process, reporting its ticks as a running count."""
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done)

    return fn(0, total, tick)


def _start_workers(context, fn: ChunkFn, bounds: list, counter, workers: list, pipes: list) -> None:
    """Fork one worker per ``(start, end)`` of ``bounds``; each started worker
    and the read end of its pipe are appended to ``workers`` and ``pipes`` at
    once, so the caller can stop and close them if a later start fails."""
    parent = os.getpid()
    for start, end in bounds:
        receive, send = context.Pipe(duplex=False)
        inherited = (*pipes, receive)  # read ends the child must not keep open
        worker = context.Process(
            target=_work,
            args=(fn, start, end, counter, send, parent, inherited),
            name=f"paperbot-build-{start}",
            daemon=True,
        )
        worker.start()
        send.close()
        workers.append(worker)
        pipes.append(receive)


def _collect(workers: list, pipes: list, counter, progress: Callable[[int], None] | None) -> dict[int, Any]:
    """Each worker's result by chunk number, as they arrive; ``progress``
    gets the shared count every ``POLL_S`` s. Raises what ``run_chunks`` says."""
    results: dict[int, Any] = {}
    waiting = dict(enumerate(pipes))
    while waiting:
        for pipe in wait(list(waiting.values()), timeout=POLL_S):
            i = next(k for k, p in waiting.items() if p is pipe)
            del waiting[i]
            try:
                ok, value = pipe.recv()
            except EOFError:
                workers[i].join(5)
                raise WorkerFailed(
                    f"an index build worker died (exit code {workers[i].exitcode}); run the build again."
                ) from None
            if not ok:
                raise value
            results[i] = value
        if progress is not None:
            progress(counter.value)
    return results


def _work(fn: ChunkFn, start: int, end: int, counter, send, parent: int, inherited: tuple) -> None:
    """Worker body: run the chunk, send ``(True, result)`` or ``(False, error)``.

    The error is the exception itself for ``OSError`` and ``ValueError`` (the
    CLI explains those in one line, e.g. a full disk), else ``WorkerFailed``
    naming it. The worker dies with the parent (``bot.core.procs``) and closes the
    pipe ends it inherited, so a lost parent never leaves it blocked.
    """
    die_with_parent(parent)
    for pipe in inherited:
        pipe.close()

    def tick(k: int) -> None:
        with counter.get_lock():
            counter.value += k

    try:
        result = fn(start, end, tick)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises
        send.send((False, _portable(exc)))
    else:
        send.send((True, result))
    finally:
        send.close()


def _portable(exc: BaseException) -> BaseException:
    """``exc`` when the parent can re-raise it as is, else ``WorkerFailed``."""
    if isinstance(exc, (OSError, ValueError)):
        try:
            pickle.loads(pickle.dumps(exc))
            return exc
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            pass
    return WorkerFailed(f"{type(exc).__name__}: {exc}")
