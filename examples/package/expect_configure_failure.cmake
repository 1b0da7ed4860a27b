# cmake -P: configures `source` into `build` with `fakekube_DIR` and expects find_package's failure
# for a missing component: a non-zero exit, and the messages of CMake and of the package.
file(REMOVE_RECURSE ${build})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${source} -B ${build} -G ${generator}
                        -Dfakekube_DIR=${fakekube_DIR}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "find_package(fakekube COMPONENTS nosuch) configured:\n${output}")
endif()
foreach(expected "fakekube_FOUND to FALSE"
                 "fakekube has no component nosuch \\(its components: ray, fixtures\\)")
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the configure failed without `${expected}`:\n${output}")
  endif()
endforeach()
