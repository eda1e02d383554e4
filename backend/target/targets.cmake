# backend/target/targets.cmake - compiles the built-in GPU target descriptions
# (backend/target/*.xml) into libkorch.  Included from the top-level CMakeLists.txt after the
# korch library is defined (an include, not add_subdirectory, so that the generated source and
# its custom command live in the same directory scope as the korch target).
#
# At build time embed-xml.cmake writes ${PROJECT_BINARY_DIR}/backend/target/builtin_targets.c:
# each XML file's bytes as a NUL-terminated char array, and the table of
# backend/target/builtin.h sorted by name (the file name without ".xml").
file(GLOB KORCH_TARGET_XML CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/backend/target/*.xml)
list(SORT KORCH_TARGET_XML)
set(KORCH_TARGET_GEN ${PROJECT_BINARY_DIR}/backend/target/builtin_targets.c)
add_custom_command(
  OUTPUT ${KORCH_TARGET_GEN}
  COMMAND ${CMAKE_COMMAND} "-DOUT=${KORCH_TARGET_GEN}" "-DINPUTS=${KORCH_TARGET_XML}"
          -P ${PROJECT_SOURCE_DIR}/backend/target/embed-xml.cmake
  DEPENDS ${KORCH_TARGET_XML} ${PROJECT_SOURCE_DIR}/backend/target/embed-xml.cmake
  COMMENT "Embedding GPU target descriptions (backend/target/*.xml)"
  VERBATIM)
target_sources(korch PRIVATE ${KORCH_TARGET_GEN})
