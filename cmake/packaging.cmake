# Install rules and the Debian package (cpack -G DEB, or scripts/package).
# The unit names /usr/bin/jank_exporter and /etc/jank_exporter: the package
# (prefix /usr) is the supported install; `cmake --install` is for packagers.
include(GNUInstallDirs)

# Absolute: the path the unit's --config names, whatever the prefix.
set(JANK_CONFIG_INSTALL_DIR "/etc/jank_exporter" CACHE PATH "Where the example configuration is installed")
set(JANK_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE PATH "systemd system units, relative to the prefix")

install(TARGETS jank_exporter RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/systemd/jank_exporter.service ${PROJECT_SOURCE_DIR}/systemd/jank-adb-server.service
  DESTINATION ${JANK_SYSTEMD_UNIT_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/config/jank_exporter.yaml DESTINATION ${JANK_CONFIG_INSTALL_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/config/grafana/jank_exporter.json ${PROJECT_SOURCE_DIR}/config/grafana/jank_exporter_farm.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/jank_exporter/grafana)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/config/prometheus/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/jank_exporter/prometheus FILES_MATCHING PATTERN "*.yml")
install(FILES ${PROJECT_SOURCE_DIR}/config/alertmanager/jank_exporter.yml
  DESTINATION ${CMAKE_INSTALL_DATADIR}/jank_exporter/alertmanager)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/operations.md
  ${PROJECT_SOURCE_DIR}/docs/troubleshooting.md ${PROJECT_SOURCE_DIR}/docs/metrics.md
  ${PROJECT_SOURCE_DIR}/docs/config.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/jank-exporter)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME jank-exporter)  # Debian names allow no underscore
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "jank_exporter")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Prometheus exporter of Android UI smoothness (skipped frames, SM, jank)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Prometheus exporter of Android UI smoothness (skipped frames, SM, jank)
A daemon for Android device farms: it follows every phone of the host's adb
server(s) and exports, per device and per app, skipped frames, smoothness (SM),
jank counts and causes and frame-time histograms, kept exact across unplugs and
restarts. Ships a hardened systemd unit, Prometheus recording and alerting
rules and a Grafana dashboard.")
set(JANK_DEB_MAINTAINER "jank_exporter maintainers <maintainers@users.noreply.a-seed-cd602e4d.example>"
  CACHE STRING "Maintainer field of the Debian package")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${JANK_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # jank-exporter_<version>_<arch>.deb
# Depends from the libraries the binary links (dpkg-shlibdeps, package dpkg-dev).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The exporter talks to an adb server, not necessarily a local one.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS adb)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS prometheus)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/deb/conffiles ${PROJECT_SOURCE_DIR}/packaging/deb/postinst
  ${PROJECT_SOURCE_DIR}/packaging/deb/prerm ${PROJECT_SOURCE_DIR}/packaging/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
