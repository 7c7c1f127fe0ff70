"""Results and feedback: score documents, their renderings, catalogues and gradebook files.

The score document (`build`, its JSON Schema) is the canonical result; every other file here
renders it: sentences from the catalogues (`messages`, `i18n`), feedback and the dashboard
through templates (`render`, `dashboard`, `graph_drawing` on `graph_layout`), what `grade`
prints (`console`), and the gradebook files an LMS imports (`gradebook`, `fill_in`,
`moodle_strings`).
"""
