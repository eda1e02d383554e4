# test/install/test-install.cmake - ctest `install.package`: the installed korch is usable.
#   cmake -DKORCH_BUILD_DIR=.. -DKORCH_SOURCE_DIR=.. -DKORCH_LIBDIR=lib -DWORK_DIR=.. -DC_COMPILER=..
#         -DGENERATOR=Ninja [-DEXTRA_FLAGS=-fsanitize=...] -P test-install.cmake
# 1. `cmake --install` into a fresh prefix; the expected files are there.
# 2. examples/dialect-plugin configures and builds out of tree with find_package(korch), and the
#    installed korch-opt loads the plugin it produced.
# 3. A program links korch::korch through find_package(korch) and runs; a newer version is refused.
# 4. A small C program compiles and links with `pkg-config --cflags --libs korch`, and runs.
# 5. The code generator: find_package(korch COMPONENTS codegen) gives korch::codegen (LLVM found
#    through the package), a program using it emits PTX; korch::korch and korch.pc name no LLVM
#    and a korch::korch consumer configures with LLVM unavailable, where COMPONENTS codegen fails;
#    korch-codegen.pc links the same program.
cmake_minimum_required(VERSION 3.20)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "FAILED (${rc}): ${cmd}\n--- stdout:\n${out}\n--- stderr:\n${err}")
  endif()
  set(RUN_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

# 1. install
run(${CMAKE_COMMAND} --install ${KORCH_BUILD_DIR} --prefix ${prefix})
foreach(f include/korch/korch.h include/korch/ir.h include/korch/nvptx.h ${KORCH_LIBDIR}/libkorch.a
          ${KORCH_LIBDIR}/libkorch_codegen.a ${KORCH_LIBDIR}/pkgconfig/korch-codegen.pc bin/korch-opt
          ${KORCH_LIBDIR}/cmake/korch/korchConfig.cmake ${KORCH_LIBDIR}/cmake/korch/korchConfigVersion.cmake
          ${KORCH_LIBDIR}/cmake/korch/korchTargets.cmake ${KORCH_LIBDIR}/pkgconfig/korch.pc)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${prefix}/${f}")
  endif()
endforeach()

# 2. the plugin example, out of tree
set(flags_arg "")
if(EXTRA_FLAGS)
  set(flags_arg "-DCMAKE_C_FLAGS=${EXTRA_FLAGS}" "-DCMAKE_SHARED_LINKER_FLAGS=${EXTRA_FLAGS}"
      "-DCMAKE_MODULE_LINKER_FLAGS=${EXTRA_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_FLAGS}")
endif()
run(${CMAKE_COMMAND} -S ${KORCH_SOURCE_DIR}/examples/dialect-plugin -B ${WORK_DIR}/plugin -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} ${flags_arg})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/plugin)
file(GLOB_RECURSE plugins ${WORK_DIR}/plugin/*.so)
if(NOT plugins)
  message(FATAL_ERROR "the out-of-tree plugin build produced no .so in ${WORK_DIR}/plugin")
endif()
foreach(so ${plugins})
  run(${prefix}/bin/korch-opt --load-dialect-plugin=${so} --help)
  # The plugin's dialect (`toy`, examples/dialect-plugin) is then registered.
  if(NOT RUN_OUTPUT MATCHES "Available Dialects:[^\n]*toy")
    message(FATAL_ERROR "korch-opt --load-dialect-plugin=${so} did not register the toy dialect:\n${RUN_OUTPUT}")
  endif()
  message(STATUS "installed korch-opt loads ${so}")
endforeach()

# 3. a program linking korch::korch through find_package
file(MAKE_DIRECTORY ${WORK_DIR}/cmake-consumer)
file(WRITE ${WORK_DIR}/cmake-consumer/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)
project(korch_consumer C)
find_package(korch 0.1 REQUIRED)
add_executable(consumer ${KORCH_SOURCE_DIR}/test/install/consumer.c)
target_link_libraries(consumer PRIVATE korch::korch)
")
run(${CMAKE_COMMAND} -S ${WORK_DIR}/cmake-consumer -B ${WORK_DIR}/cmake-consumer/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} ${flags_arg})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-consumer/build)
run(${WORK_DIR}/cmake-consumer/build/consumer)
if(NOT RUN_OUTPUT MATCHES "func.func @main")
  message(FATAL_ERROR "the find_package(korch) consumer printed unexpected IR:\n${RUN_OUTPUT}")
endif()
# A version the package does not provide is refused (korchConfigVersion.cmake).
file(WRITE ${WORK_DIR}/cmake-consumer-v9/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)
project(v9 C)
find_package(korch 9.0 REQUIRED)
")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/cmake-consumer-v9 -B ${WORK_DIR}/cmake-consumer-v9/build
                -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(korch 9.0) accepted the installed korch 0.x")
endif()
message(STATUS "find_package(korch) consumer OK")

# 4. pkg-config
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} ${prefix}/${KORCH_LIBDIR}/pkgconfig)
run(${PKG_CONFIG} --cflags korch)
string(STRIP "${RUN_OUTPUT}" cflags)
run(${PKG_CONFIG} --libs korch)
string(STRIP "${RUN_OUTPUT}" libs)
separate_arguments(cflags UNIX_COMMAND "${cflags}")
separate_arguments(libs UNIX_COMMAND "${libs}")
separate_arguments(extra UNIX_COMMAND "${EXTRA_FLAGS}")
run(${C_COMPILER} -std=c11 ${extra} ${cflags} ${KORCH_SOURCE_DIR}/test/install/consumer.c -o ${WORK_DIR}/consumer
    ${libs})
run(${WORK_DIR}/consumer)
if(NOT RUN_OUTPUT MATCHES "func.func @main")
  message(FATAL_ERROR "consumer printed unexpected IR:\n${RUN_OUTPUT}")
endif()
message(STATUS "pkg-config consumer OK: ${cflags} ... ${libs}")

if(libs MATCHES "LLVM")
  message(FATAL_ERROR "korch.pc names LLVM (libkorch does not need it): ${libs}")
endif()

# 5. the code generator
file(MAKE_DIRECTORY ${WORK_DIR}/codegen-consumer)
file(WRITE ${WORK_DIR}/codegen-consumer/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)
project(korch_codegen_consumer C)
find_package(korch 0.1 REQUIRED COMPONENTS codegen)
add_executable(consumer_codegen ${KORCH_SOURCE_DIR}/test/install/consumer_codegen.c)
target_link_libraries(consumer_codegen PRIVATE korch::codegen)
# libkorch itself links no LLVM.
get_target_property(korch_libs korch::korch INTERFACE_LINK_LIBRARIES)
if(korch_libs MATCHES \"LLVM\")
  message(FATAL_ERROR \"korch::korch links LLVM: \${korch_libs}\")
endif()
")
run(${CMAKE_COMMAND} -S ${WORK_DIR}/codegen-consumer -B ${WORK_DIR}/codegen-consumer/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} ${flags_arg})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/codegen-consumer/build)
run(${WORK_DIR}/codegen-consumer/build/consumer_codegen)
if(NOT RUN_OUTPUT MATCHES "\\.target sm_80" OR NOT RUN_OUTPUT MATCHES "\\.visible \\.entry copy\\(")
  message(FATAL_ERROR "the korch::codegen consumer printed unexpected PTX:\n${RUN_OUTPUT}")
endif()
message(STATUS "find_package(korch COMPONENTS codegen) consumer OK")

# With LLVM unavailable (CMAKE_DISABLE_FIND_PACKAGE_LLVM), korch::korch still configures and
# builds; the codegen component is refused.
run(${CMAKE_COMMAND} -S ${WORK_DIR}/cmake-consumer -B ${WORK_DIR}/cmake-consumer/build-nollvm -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON ${flags_arg})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake-consumer/build-nollvm)
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/codegen-consumer -B ${WORK_DIR}/codegen-consumer/build-nollvm
                -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
                -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(korch COMPONENTS codegen) succeeded without LLVM")
endif()
message(STATUS "korch::korch without LLVM OK; COMPONENTS codegen refused without LLVM")

# korch-codegen.pc
run(${PKG_CONFIG} --cflags --libs korch-codegen)
string(STRIP "${RUN_OUTPUT}" cg_flags)
if(NOT cg_flags MATCHES "-lkorch_codegen" OR NOT cg_flags MATCHES "-lkorch( |$)")
  message(FATAL_ERROR "korch-codegen.pc: unexpected flags ${cg_flags}")
endif()
separate_arguments(cg_flags UNIX_COMMAND "${cg_flags}")
run(${C_COMPILER} -std=c11 ${extra} ${KORCH_SOURCE_DIR}/test/install/consumer_codegen.c -o ${WORK_DIR}/consumer_codegen
    ${cg_flags})
run(${WORK_DIR}/consumer_codegen)
if(NOT RUN_OUTPUT MATCHES "\\.visible \\.entry copy\\(")
  message(FATAL_ERROR "the korch-codegen.pc consumer printed unexpected PTX:\n${RUN_OUTPUT}")
endif()
message(STATUS "pkg-config korch-codegen consumer OK: ${cg_flags}")
