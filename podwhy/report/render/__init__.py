"""The report drawn: table, markdown, JUnit and stderr, from report.model and report.words only."""
