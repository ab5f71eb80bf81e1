"""What the worker-process runners (self-play, matches, book building) share."""

# Why a worker process dies each time, most often: spawned workers import the main
# script again, which needs its guard (a script read from stdin cannot be imported).
WORKER_DIED = ("a worker process died: killed, out of memory, or started from a script "
               "without an `if __name__ == \"__main__\":` guard (or read from stdin), "
               "which worker processes need to import it; use one worker there")
