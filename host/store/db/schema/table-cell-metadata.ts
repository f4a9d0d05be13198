// Schema v9: the metadata of a table's cells (table.addMetrics: { url } and the like), as the
// run reported it: JSON, one entry per row, each one per column (TableRecord.cellMetadata);
// NULL for a table without any, which is every table written before v9.
export const tableCellMetadataSchema = `
ALTER TABLE device_tables ADD COLUMN cell_metadata TEXT;
`;
