# The public_headers test: every public header (cmake/PublicHeaders.cmake) compiles on its own.
#
# The listed headers are copied into the build tree (only they), and one generated .cpp per
# header includes just that header, compiled against the copy and the third-party packages — not
# against the source tree. So the test fails when a public header misses an include it needs
# (the classic: a Json taken by value with only json_fwd.hpp in sight) and when it includes a
# header that is not public. It is an object library in the default build: building is the test.
set(public_headers_root ${CMAKE_BINARY_DIR}/public_headers)
set(public_headers_sources)
set(public_headers_all ${FAKEKUBE_PUBLIC_HEADERS} ${FAKEKUBE_RAY_PUBLIC_HEADERS})
if(TARGET fakekube_fixtures)
  list(APPEND public_headers_all ${FAKEKUBE_FIXTURES_PUBLIC_HEADERS})
endif()
foreach(header ${public_headers_all})
  configure_file(${PROJECT_SOURCE_DIR}/${header} ${public_headers_root}/include/${header} COPYONLY)
  string(REGEX REPLACE "[/.]" "_" stem ${header})
  set(source ${public_headers_root}/src/${stem}.cpp)
  file(CONFIGURE OUTPUT ${source} CONTENT "#include \"${header}\"\n")
  list(APPEND public_headers_sources ${source})
endforeach()
# And a program that uses the API server without including <nlohmann/json.hpp>.
add_library(public_headers_test OBJECT ${public_headers_sources}
            ${PROJECT_SOURCE_DIR}/tests/public_headers/api_server_without_json.cpp)
# Not linked to fakekube::fakekube, whose include directory is the whole source tree.
target_include_directories(public_headers_test PRIVATE ${public_headers_root}/include)
target_link_libraries(public_headers_test
  PRIVATE nlohmann_json::nlohmann_json tl::expected fmt::fmt Threads::Threads PkgConfig::HTTPLIB)
if(TARGET fakekube_fixtures)
  target_link_libraries(public_headers_test PRIVATE GTest::gtest GTest::gmock)
endif()
target_compile_options(public_headers_test PRIVATE -Wall -Wextra -Wno-unused-parameter
                                                   -Wno-missing-field-initializers)
# Only whether each header compiles matters, not the code generated: no optimiser, no debug info,
# and unless the build caches compiles (ccache, which cannot cache a -fsyntax-only run), only the
# front end: the compile commands run with -fsyntax-only (cmake/compile_syntax_only.sh, in front
# of the build's own launcher if any), about a tenth less CPU. Still one source per header: a
# batch would let one header's includes cover another's missing ones.
target_compile_options(public_headers_test PRIVATE -O0 -g0)
if(NOT CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
  set(launcher ${PROJECT_SOURCE_DIR}/cmake/compile_syntax_only.sh ${CMAKE_CXX_COMPILER_LAUNCHER})
  set_target_properties(public_headers_test PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
endif()
