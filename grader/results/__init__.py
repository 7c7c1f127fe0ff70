"""Results and feedback: score documents, their renderings, catalogues and gradebook files.

The score document (`build`, its JSON Schema) is the canonical result; every other file here
renders it: sentences from the catalogues (`messages`, `i18n`), feedback and the dashboard
through templates (`render`, `dashboard`, `graph_drawing` on `graph_layout`), what `grade`
prints (`console`); the report folder's names and class files (`report_folder`, `class_files`),
and the LMS targets, one module each, with the gradebooks and feedback zips they take back
(`lms`).
"""
