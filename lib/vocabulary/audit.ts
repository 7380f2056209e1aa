/** The audit trail's actions that record a file leaving the portal: the exports list and the manifests read these. */
export const EXPORT_ACTIONS = [
  'export.picks',
  'export.results',
  'export.changes',
  'export.audit',
  'export.history',
  'export.corrections',
] as const;
