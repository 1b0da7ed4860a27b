# `cmake --install`: the libraries, their public headers (cmake/PublicHeaders.cmake) and a CMake
# package, so that a consumer writes
#
#   find_package(fakekube CONFIG REQUIRED)
#   target_link_libraries(my_controller PRIVATE fakekube::fakekube)
#   target_link_libraries(my_controller_test PRIVATE fakekube::fixtures GTest::gtest_main)
#
# (fakekube::ray for the KubeRay operator). examples/ is such a consumer; tools/test builds it
# against an install of the main build.
#
# Headers go under include/fakekube/, keeping their source paths (fakekube/..., controllers/ray/...,
# fixtures/...), so that the include root added for consumers holds fakekube's folders only.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(FAKEKUBE_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/fakekube)
set(FAKEKUBE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/fakekube)

set(fakekube_installed_targets fakekube fakekube_ray)
set(fakekube_installed_headers ${FAKEKUBE_PUBLIC_HEADERS} ${FAKEKUBE_RAY_PUBLIC_HEADERS})
set(FAKEKUBE_WITH_FIXTURES OFF)
if(TARGET fakekube_fixtures)
  list(APPEND fakekube_installed_targets fakekube_fixtures)
  list(APPEND fakekube_installed_headers ${FAKEKUBE_FIXTURES_PUBLIC_HEADERS})
  set(FAKEKUBE_WITH_FIXTURES ON)
endif()

# fakekube::fakekube, fakekube::ray, fakekube::fixtures: the same names as the build tree's aliases.
set_target_properties(fakekube PROPERTIES EXPORT_NAME fakekube)
set_target_properties(fakekube_ray PROPERTIES EXPORT_NAME ray)
if(TARGET fakekube_fixtures)
  set_target_properties(fakekube_fixtures PROPERTIES EXPORT_NAME fixtures)
endif()
foreach(target ${fakekube_installed_targets})
  target_include_directories(${target} INTERFACE $<INSTALL_INTERFACE:${FAKEKUBE_INSTALL_INCLUDEDIR}>)
endforeach()

install(TARGETS ${fakekube_installed_targets} EXPORT fakekubeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET fakekube-cli)
  install(TARGETS fakekube-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
foreach(header ${fakekube_installed_headers})
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION ${FAKEKUBE_INSTALL_INCLUDEDIR}/${folder})
endforeach()

install(EXPORT fakekubeTargets NAMESPACE fakekube:: DESTINATION ${FAKEKUBE_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/fakekubeConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/fakekubeConfig.cmake
                              INSTALL_DESTINATION ${FAKEKUBE_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the interface.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/fakekubeConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fakekubeConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/fakekubeConfigVersion.cmake
        DESTINATION ${FAKEKUBE_INSTALL_CMAKEDIR})
