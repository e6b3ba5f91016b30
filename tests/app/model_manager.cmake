# The model manager's QML bridge (issue 9): its test drives real downloads from the in-process loopback
# HTTP server, so it links that server and needs moc for its test class.
if(TARGET tst_model_manager_bridge)
  target_link_libraries(tst_model_manager_bridge PRIVATE trit_http_test_server)
  set_target_properties(tst_model_manager_bridge PROPERTIES AUTOMOC ON)
endif()
# The model manager page driven through real window events against the real bridge (download, pause
# and resume from the loopback server, drop and path import, remove, settings' folder): a Q_OBJECT test.
if(TARGET tst_model_manager_page)
  target_link_libraries(tst_model_manager_page PRIVATE trit_http_test_server)
  set_target_properties(tst_model_manager_page PROPERTIES AUTOMOC ON)
endif()
# The first run on the real window (issue 29): the recommended model comes from the loopback server.
if(TARGET tst_first_run)
  target_sources(tst_first_run PRIVATE ${CMAKE_CURRENT_LIST_DIR}/http_test_server.cpp
                                       ${CMAKE_CURRENT_LIST_DIR}/http_test_server.h)
endif()
