"""`ledger install` for each agent. Each module has install(scope, project_dir, hook_command),
uninstall(scope, project_dir) and doctor(project_dir); see common.py for the settings merge."""
