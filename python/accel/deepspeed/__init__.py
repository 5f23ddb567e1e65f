# accel.deepspeed: DeepSpeed's CPU optimizer ops running on accel's kernels.
#
# - cpu_adam, cpu_adagrad, cpu_lion: modules with the functions of DeepSpeed's
#   compiled ops of those names (create_adam, adam_update, ...).
# - CPUAdamBuilder, CPUAdagradBuilder, CPULionBuilder: op builders with
#   DeepSpeed's names whose load() returns those modules (nothing is built).
# - use_accel_ops(): the glue. It makes DeepSpeed's accelerator hand out these
#   builders and rebinds the builder names DeepSpeed already imported, so
#   DeepSpeedCPUAdam / DeepSpeedCPUAdagrad / DeepSpeedCPULion run on accel with
#   no JIT build. install_import_hook() does the same as soon as DeepSpeed's
#   op_builder is imported (for processes that import DeepSpeed later, such
#   as test workers); ACCEL_DEEPSPEED_OPS=1 does it in every process of the
#   environment. docs/python.md shows all three.
#
# - zero_offload_step(): ZeRO-2's CPU-offload step for a DeepSpeedCPUAdam in
#   two passes over memory (zero_offload.py; cpu_adam.adam_update_offload is
#   the tensor-list form).
#
# Nothing here imports torch or DeepSpeed until use_accel_ops() is called.
import importlib
import sys

from . import _ops
from ._ops import step_counts  # noqa: F401 - steps libaccel ran, per op, in this process
from .zero_offload import zero_offload_step  # noqa: F401 (torch only when called)

_MODULES = {"cpu_adam": "accel.deepspeed.cpu_adam", "cpu_adagrad": "accel.deepspeed.cpu_adagrad",
            "cpu_lion": "accel.deepspeed.cpu_lion"}


def module_for(op_name):
    """The DeepSpeed-compatible module for op `op_name`, or None."""
    name = _MODULES.get(op_name)
    return importlib.import_module(name) if name else None


def bind(module, acc):
    """Run the module's steps on accelerator `acc` (accel.Accelerator)."""
    _ops.bind(acc)


class _Builder:
    """DeepSpeed's OpBuilder interface for one of accel's host ops."""
    NAME = ""
    CLASS_NAME = ""
    BUILD_VAR = ""

    def __init__(self, name=None):
        self.name = self.NAME if name is None else name
        self.error_log = None
        self.jit_mode = False

    def absolute_name(self):
        return _MODULES[self.NAME]

    def _accel_builder(self):
        return _ops.accelerator().create_op_builder(self.CLASS_NAME)

    def is_compatible(self, verbose=False):
        return self._accel_builder().is_compatible(verbose)

    def sources(self):
        return []

    def include_paths(self):
        return []

    def cxx_args(self):
        return []

    def extra_ldflags(self):
        return []

    def builder(self):
        raise RuntimeError("accel: %s is part of libaccel and is never built by DeepSpeed; "
                           "call load()" % self.CLASS_NAME)

    def load(self, verbose=True):
        """The op's module (accel.deepspeed.<op>), on accel's kernels."""
        builder = self._accel_builder()
        if not builder.is_compatible():
            raise RuntimeError("accel: %s is not usable here: %s"
                               % (self.CLASS_NAME, builder.incompatible_reason()))
        return module_for(self.NAME)

    def jit_load(self, verbose=True):
        return self.load(verbose)


class CPUAdamBuilder(_Builder):
    NAME, CLASS_NAME, BUILD_VAR = "cpu_adam", "CPUAdamBuilder", "DS_BUILD_CPU_ADAM"


class CPUAdagradBuilder(_Builder):
    NAME, CLASS_NAME, BUILD_VAR = "cpu_adagrad", "CPUAdagradBuilder", "DS_BUILD_CPU_ADAGRAD"


class CPULionBuilder(_Builder):
    NAME, CLASS_NAME, BUILD_VAR = "cpu_lion", "CPULionBuilder", "DS_BUILD_CPU_LION"


BUILDERS = {b.CLASS_NAME: b for b in (CPUAdamBuilder, CPUAdagradBuilder, CPULionBuilder)}


def wrap_accelerator(ds_accelerator):
    """A copy of a DeepSpeed accelerator object whose get_op_builder /
    create_op_builder return accel's builders for CPUAdam, CPUAdagrad and
    CPULion (everything else is the original accelerator's)."""
    base = type(ds_accelerator)
    if getattr(base, "_accel_ops", False):
        return ds_accelerator

    def get_op_builder(self, class_name):
        if class_name in BUILDERS:
            return BUILDERS[class_name]
        return base.get_op_builder(self, class_name)

    def create_op_builder(self, class_name):
        if class_name in BUILDERS:
            return BUILDERS[class_name]()
        return base.create_op_builder(self, class_name)

    cls = type(base.__name__, (base,), {"get_op_builder": get_op_builder,
                                        "create_op_builder": create_op_builder,
                                        "_accel_ops": True,
                                        "__module__": __name__})
    wrapped = object.__new__(cls)
    wrapped.__dict__.update(ds_accelerator.__dict__)
    return wrapped


def use_accel_ops():
    """Make DeepSpeed use accel's CPUAdam/CPUAdagrad/CPULion ops in this
    process: DeepSpeed's accelerator is replaced by a copy that hands out
    accel's builders (deepspeed.accelerator.set_accelerator), and modules that
    already imported DeepSpeed's builder names get accel's. Idempotent.
    Call it before creating the optimizers."""
    from deepspeed.accelerator import get_accelerator, set_accelerator
    current = get_accelerator()
    wrapped = wrap_accelerator(current)
    if wrapped is not current:
        set_accelerator(wrapped)
    for module_name, module in list(sys.modules.items()):
        if module is None or not (module_name == "deepspeed" or module_name.startswith(
                "deepspeed.") or module_name == "op_builder"):
            continue
        for class_name, cls in BUILDERS.items():
            if module.__dict__.get(class_name) not in (None, cls) and \
                    module_name != "deepspeed.ops.op_builder.cpu" and \
                    not module_name.startswith("deepspeed.ops.op_builder.cpu."):
                setattr(module, class_name, cls)
    ops = sys.modules.get("deepspeed.ops")
    compatible = getattr(ops, "__dict__", {}).get("__compatible_ops__")
    if compatible is not None:  # already probed: correct the three entries
        for cls in BUILDERS.values():
            compatible[cls.NAME] = cls().is_compatible()


def install_import_hook():
    """use_accel_ops() now if DeepSpeed's op builders are imported, else as
    soon as they are (put it in sitecustomize or the launcher's entry script
    so every worker process gets it; ACCEL_DEEPSPEED_OPS=1 does it in every
    process of the environment, _accel_deepspeed_hook.py)."""
    import _accel_deepspeed_hook
    if _accel_deepspeed_hook.TARGET in sys.modules:
        use_accel_ops()
    else:
        _accel_deepspeed_hook.install()
