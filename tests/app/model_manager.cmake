# The model manager's QML bridge (issue 9): its test drives real downloads from the in-process loopback
# HTTP server, so it links that server and needs moc for its test class.
if(TARGET tst_model_manager_bridge)
  target_link_libraries(tst_model_manager_bridge PRIVATE trit_http_test_server)
  set_target_properties(tst_model_manager_bridge PROPERTIES AUTOMOC ON)
endif()
# The model manager's dialogs driven through real window events against the real bridge (drop, remove,
# settings' folder): a Q_OBJECT test, so it needs moc.
if(TARGET tst_model_manager_dialog)
  set_target_properties(tst_model_manager_dialog PROPERTIES AUTOMOC ON)
endif()
