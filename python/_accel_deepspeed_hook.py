# _accel_deepspeed_hook.py: the switch that puts DeepSpeed's CPU optimizer
# builders on accel's ops in every process of a Python environment,
# spawn/forkserver workers included: ACCEL_DEEPSPEED_OPS=1.
#
# accel-deepspeed-ops.pth (installed beside this module by `pip install .`)
# imports this module at interpreter start only when the variable is set to
# something other than "" or "0" (values but 1 are refused with a sentence); enable_from_environment() then adds a
# meta-path finder, which imports nothing. When (and only if) the program
# imports deepspeed.ops.op_builder, the finder lets that module run and then
# calls accel.deepspeed.use_accel_ops(). So a process that never imports
# DeepSpeed never loads libaccel either. accel.deepspeed.install_import_hook()
# adds the same finder by hand.
#
# Threads: imports hold Python's import lock; nothing here needs another.
import importlib.abc
import importlib.util
import os
import sys

VARIABLE = "ACCEL_DEEPSPEED_OPS"
TARGET = "deepspeed.ops.op_builder"


class AfterOpBuilderImport(importlib.abc.MetaPathFinder):
    """Runs accel.deepspeed.use_accel_ops() right after TARGET is imported."""

    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)  # kept until the import succeeds
        if spec is None or spec.loader is None:
            return None
        exec_module = spec.loader.exec_module

        def exec_then_use_accel_ops(module):
            exec_module(module)
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
            import accel.deepspeed
            accel.deepspeed.use_accel_ops()

        spec.loader.exec_module = exec_then_use_accel_ops
        return spec


def install():
    """Add the finder once (later calls do nothing)."""
    if not any(isinstance(f, AfterOpBuilderImport) for f in sys.meta_path):
        sys.meta_path.insert(0, AfterOpBuilderImport())


def enable_from_environment():
    """The .pth file's call: "1" installs the finder, or uses accel's ops at once if DeepSpeed's builders are already
    imported (never at interpreter start, but kept for a direct call)."""
    value = os.environ.get(VARIABLE, "")
    if value in ("", "0"):
        return
    if value != "1":
        sys.stderr.write("accel: %s=%s is neither 1 (on) nor 0 (off); DeepSpeed's ops are "
                         "left as they are\n" % (VARIABLE, value))
        return
    if TARGET in sys.modules:
        import accel.deepspeed
        accel.deepspeed.use_accel_ops()
    else:
        install()
