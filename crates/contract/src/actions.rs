//! The page's action vocabulary: what an element's `data-action` (or `data-drop`) names,
//! which the JS runtime forwards with `data-arg` and the element's value. Views of both
//! modules name actions through [`Action`] and [`FileAction`] (a view's `Action::X.name()`
//! is inlined to its literal), and the shell parses them in one place
//! (`Msg::from_action`, `Msg::from_file_action`), whose test fails until every action here
//! is handled. The JS runtime itself dispatches
//! `popstate` and `viewport`.

/// Declares an action enum with its names, in one list.
macro_rules! actions {
    ($(#[doc = $doc:literal])* $enum:ident { $($variant:ident => $name:literal,)* }) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $enum {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl $enum {
            /// Every action, in declaration order.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// The name in `data-action` / `data-drop` (inlined: a view's
            /// `Action::X.name()` is its literal).
            #[inline(always)]
            pub const fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                }
            }

            /// The action named `name`.
            pub fn from_name(name: &str) -> Option<$enum> {
                match name {
                    $($name => Some($enum::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

actions! {
    /// An action an element names in `data-action`.
    Action {
        Nav => "nav",
        Popstate => "popstate",
        Set => "set",
        LoadDataset => "load-dataset",
        ListModels => "list-models",
        ProbeStream => "probe-stream",
        OfficialUrl => "official-url",
        Start => "start",
        Pause => "pause",
        Cancel => "cancel",
        Resume => "resume",
        Discard => "discard",
        Export => "export",
        VerifyClear => "verify-clear",
        CassetteRecord => "cassette-record",
        CassetteForget => "cassette-forget",
        CassetteDownload => "cassette-download",
        ChartSvg => "chart-svg",
        ChartPng => "chart-png",
        CopyLink => "copy-link",
        CompareAdd => "compare-add",
        CompareRemove => "compare-remove",
        CompareModel => "compare-model",
        ComparePick => "compare-pick",
        GenSet => "gen-set",
        Generate => "generate",
        GenDownload => "gen-download",
        GenRun => "gen-run",
        SweepStart => "sweep-start",
        SweepStop => "sweep-stop",
        SweepDownload => "sweep-download",
        CompareDiff => "compare-diff",
        Budget => "budget",
        CompareMore => "compare-more",
        CompareLinkClose => "compare-link-close",
        CopyCompareLink => "copy-compare-link",
        Go => "go",
        LeaderboardSort => "leaderboard-sort",
        ModelSearch => "model-search",
        HistoryOpen => "history-open",
        EnvOpen => "env-open",
        EnvExport => "env-export",
        EnvCopyLink => "env-copy-link",
        EnvFile => "env-file",
        HistoryRename => "history-rename",
        HistoryLabel => "history-label",
        HistoryRenameSave => "history-rename-save",
        HistoryDelete => "history-delete",
        HistoryExport => "history-export",
        HistoryCheckpoint => "history-checkpoint",
        TraceFilter => "trace-filter",
        TraceMore => "trace-more",
        TraceTask => "trace-task",
        TraceStep => "trace-step",
        TraceClass => "trace-class",
        Toggle => "toggle",
        Viewport => "viewport",
    }
}

actions! {
    /// An action on a file an element takes (`data-drop`, a file input's `data-action`).
    FileAction {
        DatasetFile => "dataset-file",
        Upload => "upload",
        HistoryImport => "history-import",
        VerifyFile => "verify-file",
        CassetteFile => "cassette-file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_is_read_back_from_its_name() {
        for a in Action::ALL {
            assert_eq!(Action::from_name(a.name()), Some(*a));
        }
        for a in FileAction::ALL {
            assert_eq!(FileAction::from_name(a.name()), Some(*a));
        }
        assert_eq!(Action::from_name("no-such-action"), None);
    }
}
