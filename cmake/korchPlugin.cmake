# korchPlugin.cmake - korch_add_plugin(): builds a dialect plugin that korch tools load with
# `--load-dialect-plugin=<file>.so`.  Included by korchConfig.cmake (installed package) and by
# korch's own top-level CMakeLists.txt (in-tree build), so one plugin CMakeLists.txt works in both.
#
#   korch_add_plugin(<target> <source>...)
#
# The plugin is a MODULE library exporting `korch_plugin_init` (korch/dialect.h).  It compiles
# against korch::headers and does NOT link libkorch: the korch functions it calls are resolved
# at dlopen time from the host tool, which exports the whole library, so the plugin and the host
# share one copy of the code (and registries).
if(COMMAND korch_add_plugin)
  return()
endif()

function(korch_add_plugin target)
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE korch::headers)
  set_target_properties(${target} PROPERTIES
    PREFIX ""                       # <target>.so, as named on the command line
    POSITION_INDEPENDENT_CODE ON)
endfunction()
