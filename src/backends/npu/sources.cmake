# The npu backend's sources, relative to src/ (included by src/CMakeLists.txt
# when ACCEL_BACKEND_NPU is ON). Nothing here links against CANN: libascendcl
# is dlopened at run time. The declaration check (declarations_check.c) is
# not built here: its test, npu.declarations, fetches CANN's headers and
# compiles it at test time (tests/sim/CMakeLists.txt).
list(APPEND ACCEL_BACKEND_SOURCES
  backends/npu/backend.c
  backends/npu/memory.c
  backends/npu/op_builders.c
  backends/npu/stream.c
)
