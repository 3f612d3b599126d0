"""Options and helpers shared by every subcommand's command line."""
import os

from .errors import InvalidParameter


def add_backend_option(parser):
    parser.add_argument(
        "--backend", choices=("cpu", "gpu"), default="cpu",
        help="cpu: Numba on all cores (default); gpu: CUDA through CuPy",
    )


def add_threads_option(parser):
    parser.add_argument(
        "--threads", type=int, default=0, metavar="N",
        help="CPU threads to use (0, the default: all cores)",
    )


def add_output_option(parser):
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write here instead of standard output (written atomically)")


def add_dask_option(parser):
    parser.add_argument(
        "--dask", metavar="ADDRESS|local", default=None,
        help="run on a Dask cluster: a scheduler address, or 'local' for one on this machine "
             "(one worker per core, or per GPU with --backend gpu); needs bioaccel[dask]",
    )


def set_threads(threads):
    """Use ``threads`` CPU threads in Numba's parallel loops (0 = all available cores)."""
    if threads < 0:
        raise InvalidParameter(f"--threads must be 0 (all cores) or positive, got {threads}")
    import numba

    cores = numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(min(threads, cores) if threads else cores)
    return numba.get_num_threads()


def available_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
