"""Facts about what a construct of a project *is*, shared by the matchers (what to write), the project
pass (translate.project) and scan: no rewriting here."""
