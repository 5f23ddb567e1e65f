# Warnings every target of ours builds with (gcc and clang).
add_library(accel_warnings INTERFACE)
target_compile_options(accel_warnings INTERFACE -Wall -Wextra -Wshadow -Wstrict-prototypes
                       -Wmissing-prototypes -Wno-unused-parameter)
if(ACCEL_WERROR)
  target_compile_options(accel_warnings INTERFACE -Werror)
endif()
