"""VTK's own reader on a .vtp, for tests/paraview_check.py and
tests/archive_check.py: what ParaView would make of the file."""


def vtk_read(path):
    """VTK's vtkXMLPolyDataReader (Debian's python3-vtk9) on path:
    (polydata, the errors and warnings it raised). Its GetErrorCode() stays 0
    on a malformed file (bad XML, a wrong count), so the reader's error and
    warning events are what tell."""
    import vtk

    r = vtk.vtkXMLPolyDataReader()
    raised = []
    for event in ("ErrorEvent", "WarningEvent"):
        r.AddObserver(event, lambda obj, ev: raised.append(ev))
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode():
        raised.append(f"error code {r.GetErrorCode()}")
    return r.GetOutput(), raised
