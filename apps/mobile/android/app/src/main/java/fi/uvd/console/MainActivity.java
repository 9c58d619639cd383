package fi.uvd.console;

import com.getcapacitor.BridgeActivity;

public class MainActivity extends BridgeActivity {}
