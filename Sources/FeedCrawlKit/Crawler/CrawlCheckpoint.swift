/// Fixed points in the final phase of a run, reported through `CrawlConfiguration.checkpoint`
/// so crash tests can stop the process exactly there.
public enum CrawlCheckpoint: String, Sendable, CaseIterable {
    /// Every outcome is journaled and flushed; the manifest is not written yet.
    case outcomesJournaled = "outcomes-journaled"
    /// The manifest is written; the journal, evicted files and orphans are not removed yet.
    case manifestWritten = "manifest-written"
    /// The contact sheet's changed pages are saved; its state (`.sheet.json`) and `index.html`
    /// are not yet, nor are its stale pages removed.
    case sheetPagesSaved = "sheet-pages-saved"
}
