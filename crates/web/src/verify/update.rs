//! The Verify drop zone's handlers, on its own state and the narrow context: dropped files
//! read whole and handed, with the dataset's text, to the lab module.

use std::borrow::Cow;

use wildtool_contract::inputs::VerifyInput;

use super::*;
use crate::cx::Cx;
use crate::msg::{Effect, FilePurpose, FileRef, LabPurpose};
use crate::vocab::Tone;

/// A file to verify was dropped (`None`: forget the files).
pub fn file(files: &mut VerifyFiles, file: Option<FileRef>, cx: &mut Cx) -> Vec<Effect> {
    let Some(file) = file else {
        *files = VerifyFiles::default();
        cx.lab.clear(LabPurpose::Verify);
        return Vec::new();
    };
    if file.size > MAX_VERIFY_BYTES {
        cx.say(
            format!(
                "{} is larger than 256 MB: verify it with wildtool verify.",
                file.name
            ),
            Tone::Error,
        );
        return vec![Effect::ReleaseFile(file.id)];
    }
    files.reading += 1;
    let len = file.size;
    vec![Effect::ReadFile {
        file,
        offset: 0,
        len,
        purpose: FilePurpose::Verify,
    }]
}

/// A file to verify was read: verify the files so far.
pub fn read(
    files: &mut VerifyFiles,
    file: FileRef,
    bytes: Result<Vec<u8>, String>,
    cx: &mut Cx,
) -> Vec<Effect> {
    let mut fx = vec![Effect::ReleaseFile(file.id)];
    files.reading = files.reading.saturating_sub(1);
    let text = match bytes.map(String::from_utf8) {
        Ok(Ok(t)) => t,
        Ok(Err(_)) => {
            cx.say(format!("{} is not UTF-8 text.", file.name), Tone::Error);
            return fx;
        }
        Err(e) => {
            cx.say(format!("{} could not be read: {e}", file.name), Tone::Error);
            return fx;
        }
    };
    files.files.retain(|(n, _)| *n != file.name);
    files.files.push((file.name, text));
    let input = serde_json::to_string(&VerifyInput {
        files: Cow::Borrowed(&files.files),
        dataset: cx.dataset.map(|d| Cow::Borrowed(d.text.as_str())),
        lang: Cow::Borrowed(
            if cx
                .dataset
                .is_some_and(|d| d.lang == wildtool_core::dataset::Lang::Zh)
            {
                "zh"
            } else {
                "en"
            },
        ),
    })
    .unwrap_or_default();
    fx.extend(cx.lab_call(
        wildtool_contract::Call::VerifyView,
        input,
        LabPurpose::Verify,
    ));
    fx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::LabState;

    fn dropped(name: &str, size: u64) -> FileRef {
        FileRef {
            id: 7,
            name: name.to_owned(),
            size,
        }
    }

    #[test]
    fn the_drop_zone_is_driven_on_its_own_state() {
        let (mut files, mut status, mut lab) = (VerifyFiles::default(), None, LabState::default());
        let mut cx = Cx {
            dataset: None,
            status: &mut status,
            lab: &mut lab,
        };
        let fx = file(
            &mut files,
            Some(dropped("big.jsonl", MAX_VERIFY_BYTES + 1)),
            &mut cx,
        );
        assert_eq!(fx, [Effect::ReleaseFile(7)]);
        assert!(cx.status.as_ref().is_some_and(|s| s.tone == Tone::Error));
        let fx = file(&mut files, Some(dropped("manifest.json", 2)), &mut cx);
        assert!(matches!(
            fx[..],
            [Effect::ReadFile {
                offset: 0,
                len: 2,
                ..
            }]
        ));
        assert_eq!(files.reading, 1);
        let fx = read(
            &mut files,
            dropped("manifest.json", 2),
            Ok(b"{}".to_vec()),
            &mut cx,
        );
        assert_eq!(files.reading, 0);
        assert_eq!(files.files, [("manifest.json".to_owned(), "{}".to_owned())]);
        assert!(matches!(
            &fx[..],
            [
                Effect::ReleaseFile(7),
                Effect::Lab {
                    purpose: LabPurpose::Verify,
                    ..
                }
            ]
        ));
        assert!(cx.lab.busy(LabPurpose::Verify));
        file(&mut files, None, &mut cx);
        assert!(files.files.is_empty());
    }
}
