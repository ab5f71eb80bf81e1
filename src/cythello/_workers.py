"""Work spread over worker processes: the one runner behind self-play, matches and book
building, on local spawn processes or as Ray tasks.

    with Workers(workers=4) as pool:
        for index, result in pool.run(play_shard, [(0, 50), (1, 50)]):
            ...                      # results as they finish; index: the job's place

What it guarantees, whoever uses it:

- **A dead worker** (killed, out of memory) costs its jobs a try; they run again on fresh
  workers, and after :data:`MAX_TRIES` the run ends with :class:`WorkersDied` (Ray
  retries its tasks as often).  A local worker's result comes back in a file of its own,
  only the file's name through the pool's pipe: a worker killed while it sends a result
  larger than the pipe holds (a self-play shard) leaves half a message there, and the
  pool's manager thread then waits for the rest forever (seen as a hung test run).  A
  name is one small write, which a kill cannot cut in two.
- **An error or a Ctrl-C stops everything at once**: pending jobs are cancelled and the
  workers killed (their searches are C code that no signal reaches), instead of playing
  out every queued job first as a pool's shutdown would (a full disk used to be reported
  only after the whole run had played).
- **Workers never outlive their parent**: each watches the parent's sentinel and exits
  when it is gone (a parent killed with SIGKILL runs no clean-up).  They ignore SIGINT:
  Ctrl-C reaches the whole process group, and the parent decides what to keep.
- **The cores are shared, not multiplied**: in each of N local workers a search told to
  use the machine (``threads=0``: the levels, the command line's default) takes 1/N of
  the cores, in a Ray task one thread (``cythello._cores.share_cores``).
"""
from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import signal
import tempfile
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ._cores import available_cores, share_cores

MAX_TRIES = 3
POLL = 0.25         # seconds between looks at the jobs (a Ctrl-C is seen at once anyway)

# Why a worker process dies each time, most often: spawned workers import the main
# script again, which needs its guard (a script read from stdin cannot be imported).
WORKER_DIED = ("a worker process died: killed, out of memory, or started from a script "
               "without an `if __name__ == \"__main__\":` guard (or read from stdin), "
               "which worker processes need to import it; use one worker there")


class WorkersDied(RuntimeError):
    """A job's workers died :data:`MAX_TRIES` times; ``done`` jobs had finished."""

    def __init__(self, done: int) -> None:
        super().__init__(WORKER_DIED)
        self.done = done


def _watch_parent() -> None:
    """Exit when the parent process is gone (its sentinel becomes ready)."""
    import multiprocessing
    from multiprocessing.connection import wait
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(1)                        # nothing of this process is worth keeping

    threading.Thread(target=watch, name="cythello-parent-watch", daemon=True).start()


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """A Ctrl-C held back while workers start, and acted on right after: a worker
    interrupted in its start-up prints a traceback, and one started but not yet in the
    pool's table would escape the clean-up.  The workers inherit the blocked signal
    mask and ignore SIGINT before they unblock it; this process records a SIGINT that
    another of its threads receives meanwhile.  (Windows has no signal masks; signal
    handlers belong to the main thread.)"""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    caught: List[Any] = []
    if main and callable(previous):
        signal.signal(signal.SIGINT, lambda number, frame: caught.append(frame))
    masked = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if masked else None
    try:
        yield
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)   # a held SIGINT arrives here
        if main and callable(previous):
            signal.signal(signal.SIGINT, previous)
            if caught:
                previous(signal.SIGINT, caught[0])             # KeyboardInterrupt, usually


def _start_worker(initializer: Optional[Callable[..., None]], initargs: Tuple[Any, ...],
                  workers: int = 1) -> None:
    # One of ``workers`` processes at once: its searches take their share of the cores.
    share_cores(workers)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _watch_parent()
    if initializer is not None:
        initializer(*initargs)


def _result_by_file(fn: Callable[..., Any], folder: str, *job: Any) -> str:
    """``fn(*job)`` in a worker, its result pickled into a new file in ``folder``; returns
    the file's name (see "a dead worker" above)."""
    result = fn(*job)
    fd, path = tempfile.mkstemp(dir=folder, suffix=".result")
    with os.fdopen(fd, "wb") as f:
        pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def _take_result(path: str) -> Any:
    """The result a worker left in ``path``; the file is removed."""
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    finally:
        os.unlink(path)


def _ray_task(fn: Callable[..., Any], job: Tuple[Any, ...],
              initializer: Optional[Callable[..., None]], *initargs: Any) -> Any:
    # Ray resolves object references given as arguments, not inside a tuple: the
    # initializer's arguments come one by one (each put in the object store once).  A
    # task holds one of the node's CPUs (Ray's default num_cpus=1), so its searches take
    # one thread unless CYTHELLO_THREADS says otherwise.
    share_cores(available_cores())
    if initializer is not None:
        initializer(*initargs)
    return fn(*job)


class Workers:
    """``workers`` local processes (``backend="local"``; one: this process, no pool) or
    Ray tasks (``backend="ray"``, on the cluster at ``ray_address`` or a local Ray).
    ``initializer(*initargs)`` runs in each worker before its jobs (in each Ray task).
    Use it as a context manager: leaving it with an exception stops all work at once."""

    def __init__(self, workers: int = 1, backend: str = "local",
                 ray_address: Optional[str] = None,
                 initializer: Optional[Callable[..., None]] = None,
                 initargs: Tuple[Any, ...] = ()) -> None:
        self.workers, self.backend, self.ray_address = workers, backend, ray_address
        self.initializer, self.initargs = initializer, initargs
        self._pool: Any = None
        self._refs: List[Any] = []
        self._initialized = False

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, kind: Any, error: Any, trace: Any) -> None:
        if kind is None:
            self._close()
        else:
            self.abandon()

    def run(self, fn: Callable[..., Any], jobs: Sequence[Tuple[Any, ...]]
            ) -> Iterator[Tuple[int, Any]]:
        """``fn(*job)`` for every job, yielded as ``(index in jobs, result)`` in the order
        they finish (in order with one local worker)."""
        if not jobs:
            return
        if self.backend == "ray":
            yield from self._run_ray(fn, jobs)
        elif self.workers == 1 or len(jobs) < 2:
            if self.initializer is not None and not self._initialized:
                self.initializer(*self.initargs)
                self._initialized = True
            for i, job in enumerate(jobs):
                yield i, fn(*job)
        else:
            yield from self._run_local(fn, jobs)

    def _run_local(self, fn: Callable[..., Any], jobs: Sequence[Tuple[Any, ...]]
                   ) -> Iterator[Tuple[int, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool
        tries: Dict[int, int] = {}
        pending = list(range(len(jobs)))
        done = 0
        # Removed with what a killed worker left half written, however the run ends.
        folder = tempfile.mkdtemp(prefix="cythello-results-")
        try:
            while pending:
                # The pool starts the resource tracker, which unblocks SIGINT when it is
                # up; the workers start on the submits.
                pool = self._local_pool(min(self.workers, len(pending)))
                with _sigint_held():
                    futures = {pool.submit(_result_by_file, fn, folder, *jobs[i]): i
                               for i in pending}
                failed: List[int] = []
                while futures:
                    finished, _ = wait(futures, timeout=POLL, return_when=FIRST_COMPLETED)
                    for future in finished:
                        i = futures.pop(future)
                        try:
                            path = future.result()
                        except BrokenProcessPool:
                            tries[i] = tries.get(i, 0) + 1
                            if tries[i] >= MAX_TRIES:
                                raise WorkersDied(done) from None
                            failed.append(i)
                            continue
                        done += 1
                        yield i, _take_result(path)
                self._close()
                pending = sorted(failed)
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _local_pool(self, size: int) -> Any:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        self._pool = ProcessPoolExecutor(
            max_workers=size, mp_context=multiprocessing.get_context("spawn"),  # every OS alike
            initializer=_start_worker, initargs=(self.initializer, self.initargs, size))
        return self._pool

    def _run_ray(self, fn: Callable[..., Any], jobs: Sequence[Tuple[Any, ...]]
                 ) -> Iterator[Tuple[int, Any]]:
        from .errors import SettingsError
        try:
            import ray
        except ImportError:
            raise SettingsError("backend='ray' needs Ray: pip install 'cythello[ray]'") from None
        if not ray.is_initialized():
            ray.init(address=self.ray_address, ignore_reinit_error=True, log_to_driver=False)
        task = ray.remote(max_retries=MAX_TRIES)(_ray_task)
        initargs = [ray.put(arg) for arg in self.initargs]      # sent to each node once
        refs = {task.remote(fn, job, self.initializer, *initargs): i
                for i, job in enumerate(jobs)}
        self._refs = list(refs)
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=POLL)
            for ref in ready:
                i = refs.pop(ref)
                yield i, ray.get(ref)
        self._refs = []

    def _close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def abandon(self) -> None:
        """Stop now: cancel the jobs not started, kill the workers (a job half done is
        lost)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            # The pool's own shutdown waits for running jobs, and a worker cannot be asked
            # to stop mid-search: its processes are killed (Python 3.14 has
            # terminate_workers() for this; before, the process table is the only way).
            # The table itself is kept: shutdown drops the pool's reference to it, and
            # its manager thread may still be starting a worker.
            table = getattr(pool, "_processes", None) or {}
            manager = getattr(pool, "_executor_manager_thread", None)
            pool.shutdown(wait=False, cancel_futures=True)
            _kill(list(table.values()))
            if manager is not None:
                manager.join(5)
            _kill(list(table.values()))
        refs, self._refs = self._refs, []
        if refs:
            import ray
            for ref in refs:
                try:
                    ray.cancel(ref, force=True)
                except Exception:              # already finished or gone: nothing to stop
                    pass


def _kill(processes: List[Any]) -> None:
    for process in processes:
        try:
            process.kill()
        except (OSError, AttributeError, ValueError):
            pass
    for process in processes:
        try:
            process.join(5)
        except (OSError, AttributeError, ValueError, AssertionError):
            pass
